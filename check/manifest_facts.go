package check

// The verdict's inputs, read from the variants as they ran and the runs
// of their result: each delay's valid runs, how many ran at all, which
// were cut short by an interrupt, and which overlapped with another
// session on the engine.

import (
	"fmt"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// factsOf reads the verdict's inputs from the variants as they ran (--set
// included) and their runs in res.
func factsOf(vs []scenarios.Variant, res *report.Result, stated time.Duration) manifestFacts {
	f := manifestFacts{Stated: stated, Sleep: -1}
	for i, v := range vs {
		t := v.Spec.Action.Terminate()
		if i == 0 && t != nil {
			f.Grace, f.StopSignal = t.Grace.D(), t.StopSignal
			f.HookKind = hookKindOf(t.PreStop)
			if t.PreStop != nil && t.PreStop.Sleep != nil {
				f.Sleep = t.PreStop.Sleep.D()
			}
			if t.PreStop != nil {
				f.HookCommand = t.PreStop.Exec
			}
			if np := t.NewPod; np != nil {
				f.Rollout, f.Readiness = rolloutWords(np), readinessWords(np.Readiness)
			}
			f.Load = v.Spec.Load.Duration.D()
			f.Termination = fmt.Sprintf("%s, then %s, SIGKILL %s after the deletion if still running; one of %d pods behind the proxy, %s per delay",
				hookWordsOf(t.PreStop), t.StopSignal, dur(t.Grace.D()), v.Spec.Replicas, runsWords(v.Spec.Runs))
		}
		d := delayRuns{Delay: v.Spec.Proxy.DeregisterAfter.D()}
		if t != nil && t.PreStop != nil && t.PreStop.Sleep != nil {
			d.Sleep = t.PreStop.Sleep.D()
		}
		readRuns(&d, res, v.Label)
		f.Delays = append(f.Delays, d)
	}
	return f
}

// hookKindOf is a scenario's pre-stop hook as a kube hook kind ("": none).
func hookKindOf(p *scenarios.PreStop) string {
	switch {
	case p == nil:
		return ""
	case p.Sleep != nil:
		return kube.HookSleep
	case p.Exec != nil:
		return kube.HookExec
	}
	return kube.HookHTTPGet
}

// readRuns fills d from the runs of variant label in res: the pod metrics
// of its valid runs (with their hook's record), how many ran at all,
// those an interrupt cut short, and those that overlapped with another
// shutdownlab session.
func readRuns(d *delayRuns, res *report.Result, label string) {
	for _, rv := range res.Variants {
		if rv.Label != label {
			continue
		}
		for _, r := range rv.Runs {
			d.Recorded++
			if r.Meta.Incomplete {
				d.Incomplete++
			}
			if o := r.Meta.OverlappedWith; len(o) > 0 {
				d.Overlapped = append(d.Overlapped, overlapWords(r.Meta.Run, o))
			}
			pr, ok := podRunOf(&r.Metrics)
			if !r.Valid || !ok {
				continue
			}
			if a := r.Meta.Action; a != nil && a.Termination() != nil {
				pr.Hook = a.Termination().Hook
			}
			d.Runs = append(d.Runs, pr)
		}
	}
}
