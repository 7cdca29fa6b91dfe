package reproduce

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// DefaultRuntimes are the runtimes Run measures when Options.Runtimes is
// empty: Node (the published runtime) and Go.
var DefaultRuntimes = []string{string(scenarios.RuntimeNode), string(scenarios.RuntimeGo)}

// Per-run harness overhead (containers up and ready, teardown) used by the
// estimate, on top of the load and observation time.
const (
	overheadDirect = 5 * time.Second
	overheadCaddy  = 10 * time.Second
)

// Job is one scenario run of a reproduction: one scenario for one runtime,
// or for several when the scenario varies target.runtime itself.
type Job struct {
	// Scenario is the scenario name; Claims the ids it measures here.
	Scenario string
	Claims   []string
	// Runtimes are the runtimes its result covers.
	Runtimes []string
	// Sets are the --set overrides it runs with (runs=N, and
	// target.runtime=RT unless the scenario varies the runtime itself).
	Sets []string
	// Sub is its directory under the reproduction directory ("node",
	// "go", or "runtimes" for a scenario that runs both).
	Sub string
	// Estimate is the expected duration per runtime.
	Estimate map[string]time.Duration
	// Skip, when set, is why the job cannot run (scenario not in this
	// build's catalog); its claims are not run.
	Skip string
	// NotApplicable maps a requested runtime the scenario does not run to
	// the reason.
	NotApplicable map[string]string

	sc *scenarios.Scenario
}

// Total is the job's expected duration over all its runtimes.
func (j *Job) Total() time.Duration {
	var t time.Duration
	for _, d := range j.Estimate {
		t += d
	}
	return t
}

// Plan returns the jobs that measure claims on runtimes with runs
// repetitions per variant, in claim order: one job per scenario and
// runtime, except that a scenario with a target.runtime axis runs once for
// every requested runtime it lists. find looks scenarios up (nil:
// scenarios.Find); a scenario it cannot find yields a job with Skip set.
func Plan(claims []Claim, runtimes []string, runs int, find func(string) (*scenarios.Scenario, error)) ([]Job, error) {
	if find == nil {
		find = scenarios.Find
	}
	for _, rt := range runtimes {
		if rt != string(scenarios.RuntimeNode) && rt != string(scenarios.RuntimeGo) {
			return nil, fmt.Errorf("unknown runtime %q (want node or go)", rt)
		}
	}
	base := []string{"runs=" + strconv.Itoa(runs)}
	var jobs []Job
	var order []string
	ids := map[string][]string{}
	for _, c := range claims {
		if ids[c.Scenario] == nil {
			order = append(order, c.Scenario)
		}
		ids[c.Scenario] = append(ids[c.Scenario], c.ID)
	}
	for _, name := range order {
		sc, err := find(name)
		if err != nil {
			jobs = append(jobs, Job{Scenario: name, Claims: ids[name], Runtimes: runtimes,
				Skip: fmt.Sprintf("scenario %s is not in this build's catalog: %v", name, err)})
			continue
		}
		axis := runtimeAxis(sc)
		if axis == nil {
			jobs = append(jobs, perRuntimeJobs(sc, ids[name], runtimes, base)...)
			continue
		}
		j := Job{Scenario: name, Claims: ids[name], Sets: slices.Clone(base), Sub: "runtimes", sc: sc}
		for _, rt := range runtimes {
			if slices.Contains(axis, rt) {
				j.Runtimes = append(j.Runtimes, rt)
				continue
			}
			if j.NotApplicable == nil {
				j.NotApplicable = map[string]string{}
			}
			j.NotApplicable[rt] = fmt.Sprintf("scenario %s runs target.runtime %s only", name, strings.Join(axis, ", "))
		}
		switch {
		case len(j.Runtimes) == 0:
			j.Skip = "no requested runtime"
		case len(j.Runtimes) < len(axis):
			// Narrow the axis to the one requested runtime it lists.
			if len(j.Runtimes) == 1 {
				j.Sets = append(j.Sets, runtimeKey+"="+j.Runtimes[0])
				j.Sub = j.Runtimes[0]
			}
		}
		jobs = append(jobs, j)
	}
	for i := range jobs {
		if jobs[i].Skip != "" || jobs[i].sc == nil {
			continue
		}
		est, err := estimate(jobs[i].sc, jobs[i].Sets)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", jobs[i].Scenario, err)
		}
		jobs[i].Estimate = est
	}
	return jobs, nil
}

// perRuntimeJobs are the jobs of a scenario without a target.runtime axis:
// one per requested runtime it can run, with target.runtime set. A
// runtime it cannot run (the cluster program is Node only) is not
// applicable, recorded on the scenario's first job, or on a job skipped
// for having no requested runtime when it runs on none of them.
func perRuntimeJobs(sc *scenarios.Scenario, claims, runtimes, base []string) []Job {
	var jobs []Job
	na := map[string]string{}
	for _, rt := range runtimes {
		if why := notApplicable(sc, rt); why != "" {
			na[rt] = why
			continue
		}
		jobs = append(jobs, Job{Scenario: sc.Name(), Claims: claims, Runtimes: []string{rt},
			Sets: append(slices.Clone(base), runtimeKey+"="+rt), Sub: rt, sc: sc})
	}
	if len(na) == 0 {
		return jobs
	}
	if len(jobs) == 0 {
		return []Job{{Scenario: sc.Name(), Claims: claims, Skip: "no requested runtime", NotApplicable: na, sc: sc}}
	}
	jobs[0].NotApplicable = na
	return jobs
}

// notApplicable says why a scenario without a runtime axis cannot run on
// runtime rt, "" when it can: its base spec runs a program of one
// runtime's target (ProgramDef.Runtime: the Node cluster supervisor;
// scenarios refuse it on another runtime) or a load kind that needs one
// runtime's role (LoadKindDef.Runtime: load.kind jobs needs the Go
// target's queue worker).
func notApplicable(sc *scenarios.Scenario, rt string) string {
	if d, ok := scenarios.ProgramOf(sc.Spec.Target.Program); ok && rt != string(d.Runtime) {
		p := sc.Spec.Target.Program
		return fmt.Sprintf("scenario %s runs the %s %s target (target.program %s), %s only", sc.Name(), d.Runtime.Title(), p, p, d.Runtime.Title())
	}
	if d, _ := scenarios.LoadKindOf(sc.Spec.Load.Kind); d.Runtime != "" && rt != string(d.Runtime) {
		return fmt.Sprintf("scenario %s %s", sc.Name(), d.RuntimeOnly)
	}
	return ""
}

// runtimeAxis returns the values of the scenario's target.runtime axis, nil
// without one.
func runtimeAxis(sc *scenarios.Scenario) []string {
	for _, ax := range sc.Axes {
		if ax.Key == runtimeKey {
			return ax.Values
		}
	}
	return nil
}

// estimate expands sc with sets and sums, per runtime, runs × (the load or
// the action plus the observation window, whichever is longer, plus the
// harness overhead) over its variants: an upper bound, since a target that
// exits early ends the observation early.
func estimate(sc *scenarios.Scenario, sets []string) (map[string]time.Duration, error) {
	vs, err := sc.Expand(sets)
	if err != nil {
		return nil, err
	}
	out := map[string]time.Duration{}
	for _, v := range vs {
		out[string(v.Spec.Target.Runtime)] += time.Duration(v.Spec.Runs) * RunDuration(v.Spec)
	}
	return out, nil
}

// RunDuration estimates one run of a spec: the longer of the load and the
// action time plus the observation window, plus the harness overhead.
func RunDuration(s scenarios.Spec) time.Duration {
	d := s.Load.Duration.D()
	if s.Action.Kind != scenarios.ActionNone {
		d = max(d, s.Action.At.D()+s.Observe.Window.D())
	}
	if s.Topology == scenarios.TopologyCaddy {
		return d + overheadCaddy
	}
	return d + overheadDirect
}

// EstimateByRuntime sums the jobs' estimates per runtime.
func EstimateByRuntime(jobs []Job) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, j := range jobs {
		for rt, d := range j.Estimate {
			out[rt] += d
		}
	}
	return out
}
