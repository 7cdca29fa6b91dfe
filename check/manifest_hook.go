package check

// What the verdict of `check --manifest` says of a preStop hook that
// failed (the kubelet's FailedPreStopHook: it sends the stop signal at
// once, so the hook held nothing back), of runs an interrupt cut short or
// never started, and of runs another session's containers overlapped.

import (
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities/pod/podmetrics"
	"github.com/shutdownlab/shutdownlab/internal/kube"
)

// nativeSleep is what any preStop advice adds once a hook failed.
const nativeSleep = "a native lifecycle.preStop.sleep (Kubernetes 1.30+) needs no shell or sleep binary in the image"

// anyHookFailed reports whether the preStop hook failed in a valid run.
func (d delayRuns) anyHookFailed() bool {
	for _, r := range d.Runs {
		if r.hookFailed() {
			return true
		}
	}
	return false
}

// hookFailures counts the valid runs of the sweep and those whose hook
// failed, and returns the first failure's words.
func hookFailures(f manifestFacts) (failed, runs int, first string) {
	for _, d := range f.Delays {
		for _, r := range d.Runs {
			runs++
			if r.hookFailed() {
				failed++
				if first == "" && r.Hook != nil {
					first = podmetrics.HookFailureText(r.Hook)
				}
			}
		}
	}
	return failed, runs, first
}

// hookFailureLine names the failed preStop hook as the kubelet sees it,
// with how many runs it failed in ("": it failed in none).
func hookFailureLine(f manifestFacts) string {
	failed, runs, first := hookFailures(f)
	switch {
	case failed == 0:
		return ""
	case first == "":
		first = "the preStop hook failed: the kubelet records FailedPreStopHook and sends the stop signal at once"
	}
	in := fmt.Sprintf("in %d of %d runs", failed, runs)
	if failed == runs {
		in = "in every run"
		if runs == 1 {
			in = "in the run"
		}
	}
	return fmt.Sprintf("hook: %s (%s)", first, in)
}

// hookAdvice is the answer's line about a failed hook ("": none failed):
// what to fix, and the native sleep that needs nothing of the image.
func hookAdvice(f manifestFacts) string {
	if failed, _, _ := hookFailures(f); failed == 0 {
		return ""
	}
	fix := "make the hook succeed in the image"
	if f.HookKind == kube.HookExec {
		fix = "give the image the hook's command, or replace the hook"
		if s, ok := execSleep(f.HookCommand); ok {
			fix = fmt.Sprintf("this exec only sleeps: lifecycle.preStop.sleep.seconds: %d does the same", s)
		}
	}
	return fmt.Sprintf("preStop: the hook failed, so the pod got its stop signal at once: %s; %s", fix, nativeSleep)
}

// nativeSleepWords ends a preStop sleep recommendation when the
// manifest's own hook failed.
func nativeSleepWords(f manifestFacts) string {
	if failed, _, _ := hookFailures(f); failed == 0 {
		return ""
	}
	return "; " + nativeSleep
}

// execSleep reads an exec hook that only sleeps (`sleep 5`, `/bin/sleep
// 5s`, `sh -c "sleep 5"`) as whole seconds, rounded up; false for any
// other command.
func execSleep(cmd []string) (int, bool) {
	if len(cmd) == 3 && cmd[1] == "-c" && strings.HasSuffix(path.Base(cmd[0]), "sh") {
		cmd = strings.Fields(cmd[2])
	}
	if len(cmd) != 2 || path.Base(cmd[0]) != "sleep" {
		return 0, false
	}
	arg := cmd[1]
	if d, err := time.ParseDuration(arg); err == nil && d >= 0 {
		return int(math.Ceil(d.Seconds())), true
	}
	if v, err := strconv.ParseFloat(arg, 64); err == nil && v >= 0 && !math.IsInf(v, 0) {
		return int(math.Ceil(v)), true
	}
	return 0, false
}

// noRunText is a delay's line without a valid run: not measured because
// of an interrupt, when that is why.
func noRunText(d delayRuns, interrupted bool) string {
	if s := notMeasured(d.Recorded, d.Incomplete, interrupted); s != "" {
		return s
	}
	return "no valid run"
}

// overlapNotes name the runs, of the sweep and of the pre-stop search,
// that overlapped with another shutdownlab session on the engine, as
// report.md's notes do.
func overlapNotes(f manifestFacts) []string {
	var out []string
	for _, d := range f.Delays {
		for _, o := range d.Overlapped {
			out = append(out, fmt.Sprintf("propagation %s: %s: its timings may be disturbed", dur(d.Delay), o))
		}
	}
	for _, d := range f.Search {
		for _, o := range d.Overlapped {
			out = append(out, fmt.Sprintf("pre-stop search, sleep %s: %s: its timings may be disturbed", dur(d.Sleep), o))
		}
	}
	return out
}
