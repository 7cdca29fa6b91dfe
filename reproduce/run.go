package reproduce

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// ScenarioRunner runs one scenario with --set overrides, writing its result
// directory under out. DockerRunner is the real one.
type ScenarioRunner interface {
	RunScenario(ctx context.Context, sc *scenarios.Scenario, out string, sets []string) (Outcome, error)
}

// Outcome is what a ScenarioRunner reports about one scenario: its result
// directory ("" when nothing was written) and its run counts.
type Outcome struct {
	Dir                       string
	Runs, Invalid, Incomplete int
}

// Options configure Run.
type Options struct {
	// Runs is the repetitions per variant (default 3, as published).
	Runs int
	// Runtimes are the target runtimes to measure (default node, go).
	Runtimes []string
	// Only selects claims by id ("P2", "W3"); empty means all of them.
	Only []string
	// Out is the root of the reproduction directory (default
	// results/runs): Run writes Out/<timestamp>-reproduce/.
	Out string
	// Runner runs the scenarios (required).
	Runner ScenarioRunner
	// Rebuild re-reads a scenario's result directory, writes its reports
	// with every capability's section and returns its result (required:
	// the program's report/document.Rebuild, which this package cannot
	// import: document reads the capabilities list, which installs the
	// capabilities' claims into this package).
	Rebuild func(dir string) (*report.Result, error)
	// Log receives progress lines (default: discarded).
	Log io.Writer
	// Now is the clock for the directory name and the report (default
	// time.Now).
	Now func() time.Time
	// Find looks scenarios up (default scenarios.Find).
	Find func(string) (*scenarios.Scenario, error)
}

// Report is a judged reproduction: every selected claim on every runtime.
type Report struct {
	// Dir is the reproduction directory ("" for a report not written).
	Dir string
	// GeneratedAt is when the report was made.
	GeneratedAt time.Time
	// Runs is the repetitions per variant; Runtimes the runtimes measured.
	Runs     int
	Runtimes []string
	// Fingerprint is this machine (from the first result that has one);
	// Versions maps a runtime to its recorded version ("node v20.20.2").
	Fingerprint record.Fingerprint
	Versions    map[string]string
	// Claims are the judged claims, in table order.
	Claims []ClaimResult
	// Scenarios are the scenario results, one per scenario and runtime.
	Scenarios []ScenarioResult
	// Failed is set when a scenario failed to run or a run was invalid or
	// incomplete: the command exits 2.
	Failed bool
}

// ClaimResult is one claim and its verdict per runtime.
type ClaimResult struct {
	Claim    Claim
	Verdicts map[string]Verdict
}

// ScenarioResult is one scenario's result on one runtime.
type ScenarioResult struct {
	// Scenario and Runtime name it; Dir is its result directory, relative
	// to the reproduction directory when under it.
	Scenario, Runtime, Dir string
	// Result is this runtime's part of the result (nil when not run).
	Result *report.Result
	// Err says why it was not run or failed; NotApplicable why the
	// runtime does not apply to the scenario.
	Err, NotApplicable string
	// Invalid and Incomplete count runs that do not count.
	Invalid, Incomplete int
}

// Run plans the scenarios for the selected claims, runs them, judges every
// claim and writes REPRODUCTION.md and reproduction.csv in a fresh
// Out/<timestamp>-reproduce/ directory. A scenario that fails leaves its
// claims not_run and sets Report.Failed; the report is written anyway. An
// error is returned only for bad options or when the report cannot be
// written.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Runner == nil {
		return nil, errors.New("reproduce: no scenario runner")
	}
	if opts.Rebuild == nil {
		return nil, errors.New("reproduce: no report writer (Options.Rebuild)")
	}
	opts = withDefaults(opts)
	claims, err := Select(opts.Only)
	if err != nil {
		return nil, err
	}
	jobs, err := Plan(claims, opts.Runtimes, opts.Runs, opts.Find)
	if err != nil {
		return nil, err
	}
	now := opts.Now()
	dir, err := newDir(opts.Out, now)
	if err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) { fmt.Fprintf(opts.Log, "reproduce: "+format+"\n", args...) }
	logf("%d claims, %d scenario runs, %d runs per variant, runtimes %s -> %s", len(claims), len(jobs), opts.Runs,
		strings.Join(opts.Runtimes, ","), dir)
	logf("estimated duration: %s", FormatEstimate(EstimateByRuntime(jobs), opts.Runtimes))
	var srs []ScenarioResult
	failed := false
	for i := range jobs {
		j := &jobs[i]
		if ctx.Err() != nil && j.Skip == "" {
			j.Skip = "interrupted"
			failed = true
		}
		logf("[%d/%d] %s on %s (%s): %s", i+1, len(jobs), j.Scenario, strings.Join(j.Runtimes, "+"),
			strings.Join(j.Claims, ", "), jobStatus(j))
		got, bad := runJob(ctx, opts, j, dir)
		failed = failed || bad
		for _, sr := range got {
			switch {
			case sr.Err != "":
				logf("    %s on %s: not run: %s", sr.Scenario, sr.Runtime, sr.Err)
			case sr.NotApplicable == "":
				logf("    %s on %s: %s (%d invalid, %d incomplete)", sr.Scenario, sr.Runtime, sr.Dir, sr.Invalid, sr.Incomplete)
			}
		}
		srs = append(srs, got...)
	}
	rep := Assemble(claims, opts.Runtimes, opts.Runs, srs)
	rep.Dir, rep.GeneratedAt = dir, now.UTC()
	rep.Failed = rep.Failed || failed
	if err := rep.WriteFiles(dir); err != nil {
		return rep, err
	}
	logf("wrote %s", filepath.Join(dir, "REPRODUCTION.md"))
	return rep, nil
}

func withDefaults(o Options) Options {
	if o.Runs <= 0 {
		o.Runs = 3
	}
	if len(o.Runtimes) == 0 {
		o.Runtimes = DefaultRuntimes
	}
	if o.Out == "" {
		o.Out = filepath.Join("results", "runs")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

func jobStatus(j *Job) string {
	if j.Skip != "" {
		return "skipped: " + j.Skip
	}
	return "about " + j.Total().Round(time.Second).String()
}

// runJob runs one job with opts' Runner, rebuilds its reports with
// opts' Rebuild and returns one ScenarioResult per runtime it covers
// (plus its not-applicable runtimes), and whether it failed.
func runJob(ctx context.Context, opts Options, j *Job, dir string) ([]ScenarioResult, bool) {
	var out []ScenarioResult
	for _, rt := range slices.Sorted(maps.Keys(j.NotApplicable)) {
		out = append(out, ScenarioResult{Scenario: j.Scenario, Runtime: rt, NotApplicable: j.NotApplicable[rt]})
	}
	fail := func(msg string) []ScenarioResult {
		for _, rt := range j.Runtimes {
			out = append(out, ScenarioResult{Scenario: j.Scenario, Runtime: rt, Err: msg})
		}
		return out
	}
	if j.Skip != "" {
		// A scenario missing from the catalog is not a harness failure.
		return fail(j.Skip), j.Skip == "interrupted"
	}
	oc, err := opts.Runner.RunScenario(ctx, j.sc, filepath.Join(dir, j.Sub), j.Sets)
	if oc.Dir == "" {
		if err == nil {
			err = errors.New("no result directory")
		}
		return fail(err.Error()), true
	}
	res, rerr := opts.Rebuild(oc.Dir)
	if rerr != nil {
		return fail(fmt.Sprintf("report %s: %v", oc.Dir, rerr)), true
	}
	rel := oc.Dir
	if r, err := filepath.Rel(dir, oc.Dir); err == nil && !strings.HasPrefix(r, "..") {
		rel = filepath.ToSlash(r)
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	for _, rt := range j.Runtimes {
		part := res
		if runtimeAxis(j.sc) != nil {
			part = SplitRuntime(res, rt)
		}
		sr := ScenarioResult{Scenario: j.Scenario, Runtime: rt, Dir: rel, Result: part, Err: msg}
		if part == nil && msg == "" {
			sr.Err = "no variant ran runtime " + rt
		}
		if part != nil {
			sr.Invalid, sr.Incomplete = countBad(part)
		}
		out = append(out, sr)
	}
	return out, err != nil || oc.Invalid > 0 || oc.Incomplete > 0
}

// countBad counts a result's invalid and incomplete runs.
func countBad(res *report.Result) (invalid, incomplete int) {
	for _, v := range res.Variants {
		for _, r := range v.Runs {
			switch {
			case r.Meta.Incomplete:
				incomplete++
			case !r.Valid:
				invalid++
			}
		}
	}
	return invalid, incomplete
}

// Assemble judges claims on runtimes from the scenario results. Pure: the
// report's Dir and GeneratedAt are left for the caller.
func Assemble(claims []Claim, runtimes []string, runs int, srs []ScenarioResult) *Report {
	rep := &Report{Runs: runs, Runtimes: runtimes, Versions: map[string]string{}, Scenarios: srs}
	find := func(sc, rt string) *ScenarioResult {
		for i := range srs {
			if srs[i].Scenario == sc && srs[i].Runtime == rt {
				return &srs[i]
			}
		}
		return nil
	}
	for _, sr := range srs {
		if sr.Result == nil {
			continue
		}
		if rep.Fingerprint == (record.Fingerprint{}) {
			rep.Fingerprint = sr.Result.Fingerprint
		}
		if rep.Versions[sr.Runtime] == "" {
			rep.Versions[sr.Runtime] = RuntimeVersion(sr.Result)
		}
	}
	for _, c := range claims {
		cr := ClaimResult{Claim: c, Verdicts: map[string]Verdict{}}
		for _, rt := range runtimes {
			sr := find(c.Scenario, rt)
			switch {
			case sr == nil:
				cr.Verdicts[rt] = Verdict{Status: NotRun, Rule: c.Rule, Why: "scenario " + c.Scenario + " was not run"}
			case sr.NotApplicable != "":
				cr.Verdicts[rt] = Verdict{Status: NotApplicable, Rule: c.Rule, Why: sr.NotApplicable}
			case sr.Result == nil:
				cr.Verdicts[rt] = Verdict{Status: NotRun, Rule: c.Rule, Why: sr.Err}
			default:
				v := c.Judge(sr.Result)
				if v.Status == NotRun && sr.Err != "" {
					v.Why += " (" + sr.Err + ")"
				}
				cr.Verdicts[rt] = v
			}
		}
		rep.Claims = append(rep.Claims, cr)
	}
	return rep
}

// newDir creates root/<timestamp>-reproduce/, with a numeric suffix when it
// exists (internal/resultdir names every result directory).
func newDir(root string, now time.Time) (string, error) {
	dir, err := resultdir.New(root, "reproduce", now)
	if err != nil {
		return "", fmt.Errorf("reproduce: %w", err)
	}
	return dir, nil
}

// FormatEstimate prints per-runtime estimates and their total
// ("node ~31m, go ~31m; total ~1h2m").
func FormatEstimate(est map[string]time.Duration, runtimes []string) string {
	var parts []string
	var total time.Duration
	for _, rt := range runtimes {
		parts = append(parts, fmt.Sprintf("%s ~%s", rt, roundMin(est[rt])))
		total += est[rt]
	}
	return strings.Join(parts, ", ") + "; total ~" + roundMin(total) + " (upper bound, plus image builds)"
}

func roundMin(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Second).String()
	}
	s := d.Round(time.Minute).String()
	return strings.TrimSuffix(s, "0s")
}
