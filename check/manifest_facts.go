package check

// The verdict's inputs, read from what the runs recorded (record.Meta:
// the termination, its hook, the deregistration, the pods) and, where no
// run recorded a termination, from the variants as they were to run: each
// delay's valid runs, how many ran at all, which were cut short by an
// interrupt, and which overlapped with another session on the engine.

import (
	"fmt"
	"math"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// manifestFacts are the verdict's inputs.
type manifestFacts struct {
	// Termination says in words what the kubelet did ("preStop sleep 3s,
	// then SIGTERM, SIGKILL 30s after the deletion").
	Termination string
	StopSignal  string
	Grace       time.Duration
	// Sleep is the preStop sleep that ran (-1: no sleep hook); HookKind
	// its hook's kind (kube.HookSleep, ...; "": none), HookCommand an exec
	// hook's command.
	Sleep       time.Duration
	HookKind    string
	HookCommand []string
	// Image is the image the pods ran; Pods how many served behind the
	// proxy (the terminated one included, its new pod not).
	Image  string
	Pods   int
	Stated time.Duration
	Delays []delayRuns
	// Search are the pre-stop search's candidates at Stated (nil: none).
	Search []delayRuns
	// Rollout says in words how the new pod of the rolling update joins
	// ("" without one); Readiness names its readiness probe ("" for none).
	Rollout, Readiness string
	// ReadyPath is the path the harness found the app ready on; Load the
	// runs' load length: what a re-run with a readiness probe needs.
	ReadyPath string
	Load      time.Duration
	// Interrupted is true when the check was stopped before its end
	// (Ctrl-C, SIGTERM, SIGHUP): what did not run is said so.
	Interrupted bool
}

// factsOf reads the verdict's inputs from the runs in res, and from the
// variants as they were to run (--set included) what no run recorded.
func factsOf(vs []scenarios.Variant, res *report.Result, stated time.Duration) manifestFacts {
	f := manifestFacts{Stated: stated, Sleep: -1}
	recorded := false
	for i, v := range vs {
		meta, ran := ranOf(res, v.Label)
		if i == 0 || !recorded && ran != nil {
			f.setTermination(v, meta, ran)
			recorded = ran != nil
		}
		d := delayRuns{Delay: delayOf(v, meta), Sleep: sleepOf(v, ran)}
		readRuns(&d, res, v.Label)
		f.Delays = append(f.Delays, d)
	}
	return f
}

// setTermination sets the facts of the termination: as run ran recorded
// it (meta its run's record), or as variant v was to run it when ran is
// nil (no run of v got to its deletion).
func (f *manifestFacts) setTermination(v scenarios.Variant, meta record.Meta, ran *record.Termination) {
	t := v.Spec.Action.Terminate()
	if t == nil {
		return
	}
	hook, signal, grace := hookOfSpec(t.PreStop), t.StopSignal, t.Grace.D()
	f.Image, f.Pods = v.Spec.Target.Image, v.Spec.Replicas
	if ran != nil {
		hook, signal, grace = hookOfRun(ran.Hook), ran.Signal, time.Duration(ran.GraceS)*time.Second
		f.Image, f.Pods = ranImage(meta, f.Image), ranPods(meta, ran)
	}
	f.Grace, f.StopSignal = grace, signal
	f.setHook(hook)
	if np := t.NewPod; np != nil {
		f.Rollout, f.Readiness = rolloutWords(np), readinessWords(np.Readiness)
	}
	f.Load = v.Spec.Load.Duration.D()
	f.Termination = fmt.Sprintf("%s, then %s, SIGKILL %s after the deletion if still running; one of %d pods behind the proxy, %s per delay",
		hookWords(hook), signal, dur(grace), f.Pods, runsWords(v.Spec.Runs))
}

// setHook sets the facts of the pre-stop hook h (nil: none).
func (f *manifestFacts) setHook(h *kube.Hook) {
	f.Sleep, f.HookKind, f.HookCommand = -1, "", nil
	if h == nil {
		return
	}
	f.HookKind = h.Kind
	switch h.Kind {
	case kube.HookSleep:
		f.Sleep = h.Sleep
	case kube.HookExec:
		f.HookCommand = h.Command
	}
}

// ranOf is the first run of variant label in res that got to its pod's
// deletion: its record and its termination's (nil: none did).
func ranOf(res *report.Result, label string) (record.Meta, *record.Termination) {
	for _, rv := range res.Variants {
		if rv.Label != label {
			continue
		}
		for _, r := range rv.Runs {
			if a := r.Meta.Action; a != nil && a.Termination() != nil && a.Termination().DeletedNs > 0 {
				return r.Meta, a.Termination()
			}
		}
	}
	return record.Meta{}, nil
}

// delayOf is variant v's propagation delay: the deregistration's delay
// as its run recorded it (meta), else v's proxy.deregister_after.
func delayOf(v scenarios.Variant, meta record.Meta) time.Duration {
	if a := meta.Action; a != nil && a.Deregister != nil {
		return msDuration(a.Deregister.AfterMs)
	}
	return v.Spec.Proxy.DeregisterAfter.D()
}

// sleepOf is variant v's preStop sleep (0 without one): as its run
// recorded it (ran), else as v was to run it.
func sleepOf(v scenarios.Variant, ran *record.Termination) time.Duration {
	if ran != nil {
		if h := hookOfRun(ran.Hook); h != nil && h.Kind == kube.HookSleep {
			return h.Sleep
		}
		return 0
	}
	if t := v.Spec.Action.Terminate(); t != nil && t.PreStop != nil && t.PreStop.Sleep != nil {
		return t.PreStop.Sleep.D()
	}
	return 0
}

// ranImage is the image the run's terminated pod ran (alt when the
// record does not name it).
func ranImage(meta record.Meta, alt string) string {
	if a := meta.Action; a != nil && a.Replica >= 0 && a.Replica < len(meta.Replicas) && meta.Replicas[a.Replica].Image != "" {
		return meta.Replicas[a.Replica].Image
	}
	return alt
}

// ranPods counts the run's pods behind the proxy: its replicas but the
// new pod of a rolling update.
func ranPods(meta record.Meta, ran *record.Termination) int {
	n := 0
	for _, r := range meta.Replicas {
		if ran.NewPod == nil || r.Name != ran.NewPod.Name {
			n++
		}
	}
	return n
}

// msDuration is a record's milliseconds as a duration.
func msDuration(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// hookOfSpec is a scenario's pre-stop hook as a kube hook (nil: none).
func hookOfSpec(p *scenarios.PreStop) *kube.Hook {
	switch {
	case p == nil:
		return nil
	case p.Sleep != nil:
		return &kube.Hook{Kind: kube.HookSleep, Sleep: p.Sleep.D()}
	case p.Exec != nil:
		return &kube.Hook{Kind: kube.HookExec, Command: p.Exec}
	}
	return &kube.Hook{Kind: kube.HookHTTPGet, Path: p.HTTPGet.Path, Port: p.HTTPGet.Port}
}

// hookOfRun is a pre-stop hook's run as a kube hook (nil: none ran).
func hookOfRun(h *record.HookRun) *kube.Hook {
	switch {
	case h == nil:
		return nil
	case h.Kind == "exec":
		return &kube.Hook{Kind: kube.HookExec, Command: h.Command}
	case h.Kind == "http_get":
		return &kube.Hook{Kind: kube.HookHTTPGet, Path: h.Path, Port: h.Port}
	}
	return &kube.Hook{Kind: kube.HookSleep, Sleep: msDuration(h.SleepMs)}
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
