package check

// The verdict of `check --manifest`: for each propagation delay, whether
// the pod's termination failed any client request and under which rule;
// then, in plain words, whether it is safe at the user's delay, the
// smallest preStop sleep that measured safe, and the grace period the
// measured exit needs. Pure: its inputs are the metrics of the runs.

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities/pod"
	"github.com/shutdownlab/shutdownlab/capabilities/pod/podmetrics"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// podRun is one valid termination run as the verdict reads it: its pod
// metrics (podmetrics.Metrics, docs/metrics.md), its core metrics, and
// its hook's record.
type podRun struct {
	podmetrics.Metrics
	// Core are the run's core metrics: the verdict reads its slowest ok
	// request (MaxMs) and its pod's exit code (ExitCode).
	Core report.Metrics
	// Hook is the run's pre-stop hook as the runner recorded it (nil
	// without one): how it failed, when it did.
	Hook *record.HookRun
}

// hookFailed reports whether the run's pre-stop hook failed (the
// kubelet's FailedPreStopHook).
func (r podRun) hookFailed() bool { return r.PodHookFailed != nil && *r.PodHookFailed }

// newPodFailed counts the failed requests the proxy sent to the new pod:
// 0 without a new pod (pod_failed_new_pod is null then), as none was
// there to take any.
func (r podRun) newPodFailed() int {
	if r.PodFailedNewPod == nil {
		return 0
	}
	return *r.PodFailedNewPod
}

// podRunOf is the run of metrics m; false when m has no pod metrics
// (its action was not a pod's termination).
func podRunOf(m *report.Metrics) (podRun, bool) {
	p := pod.Of(m)
	if p == nil {
		return podRun{}, false
	}
	return podRun{Metrics: *p, Core: *m}, true
}

// delayRuns are the valid runs of one propagation delay (or, in the
// pre-stop search, of one candidate sleep at the user's delay).
type delayRuns struct {
	Delay time.Duration
	// Sleep is the search's candidate preStop sleep (0 outside it).
	Sleep time.Duration
	Runs  []podRun
	// Recorded counts the runs that ran at all (valid or not), Incomplete
	// those an interrupt cut short; Overlapped names the runs that
	// overlapped with another shutdownlab session ("run 1 overlapped
	// with another shutdownlab session (SESSION)").
	Recorded, Incomplete int
	Overlapped           []string
}

// safe: every run valid and clean (nothing failed, no SIGKILL, the
// preStop hook did not fail); false without a valid run.
func (d delayRuns) safe() bool {
	for _, r := range d.Runs {
		if r.PodFailed > 0 || r.PodKilled || r.hookFailed() {
			return false
		}
	}
	return len(d.Runs) > 0
}

// worst is the run with the most failures (a SIGKILL breaking ties).
func (d delayRuns) worst() podRun {
	w := d.Runs[0]
	for _, r := range d.Runs[1:] {
		if r.PodFailed > w.PodFailed || r.PodFailed == w.PodFailed && r.PodKilled && !w.PodKilled {
			w = r
		}
	}
	return w
}

// manifestVerdict renders the verdict and returns it with its exit code:
// VerdictDefect when unsafe at the stated delay, VerdictUnclear when no
// run of it was valid.
func manifestVerdict(f manifestFacts) (string, int) {
	var b strings.Builder
	fmt.Fprintf(&b, "  termination: %s\n", f.Termination)
	if s := hookFailureLine(f); s != "" {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	if f.Rollout != "" {
		fmt.Fprintf(&b, "  rollout: %s\n", f.Rollout)
	}
	if f.Interrupted {
		b.WriteString("  interrupted: the check was stopped before its end (Ctrl-C, SIGTERM or SIGHUP); what it did not measure is said so below\n")
	}
	var stated *delayRuns
	var safeAt, unsafeAt []string
	for i := range f.Delays {
		d := &f.Delays[i]
		fmt.Fprintf(&b, "  propagation %s: %s\n", dur(d.Delay), delayText(*d, f))
		if d.Delay == f.Stated {
			stated = d
		}
		switch {
		case d.safe():
			safeAt = append(safeAt, dur(d.Delay))
		case len(d.Runs) > 0:
			unsafeAt = append(unsafeAt, dur(d.Delay))
		}
	}
	b.WriteString("  answer:\n")
	code := VerdictClean
	switch {
	case (stated == nil || len(stated.Runs) == 0) && f.Interrupted:
		fmt.Fprintf(&b, "    - at your propagation delay, %s: could not tell: the check was interrupted before it was measured\n", dur(f.Stated))
		code = VerdictUnclear
	case stated == nil || len(stated.Runs) == 0:
		fmt.Fprintf(&b, "    - at your propagation delay, %s: could not tell (no valid run; the report's \"Runs not counted\" says why)\n", dur(f.Stated))
		code = VerdictUnclear
	case stated.safe() && keepAliveBound(f) > f.Grace:
		fmt.Fprintf(&b, "    - at your propagation delay, %s: UNSAFE on a cluster: no request failed here, but %s\n", dur(f.Stated), keepAliveWords(f))
		code = VerdictDefect
	case stated.safe():
		fmt.Fprintf(&b, "    - at your propagation delay, %s: SAFE: no request failed and the pod exited by itself\n", dur(f.Stated))
	default:
		fmt.Fprintf(&b, "    - at your propagation delay, %s: UNSAFE\n", dur(f.Stated))
		code = VerdictDefect
	}
	fmt.Fprintf(&b, "    - measured safe at: %s; unsafe at: %s\n", listOr(safeAt, "none"), listOr(unsafeAt, "none"))
	if s := hookAdvice(f); s != "" {
		fmt.Fprintf(&b, "    - %s\n", s)
		// A failed hook is a defect whatever the requests did.
		code = max(code, VerdictDefect)
	}
	if s := readinessText(f, stated); s != "" {
		fmt.Fprintf(&b, "    - %s\n", s)
	}
	fmt.Fprintf(&b, "    - %s\n", graceText(f))
	if s := searchText(f); s != "" {
		fmt.Fprintf(&b, "    - %s\n", s)
	}
	for _, n := range overlapNotes(f) {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	return b.String(), code
}

// delayText is one delay's line: safe, or what failed under which rule.
func delayText(d delayRuns, f manifestFacts) string {
	if len(d.Runs) == 0 {
		return noRunText(d, f.Interrupted)
	}
	w := d.worst()
	runs := fmt.Sprintf(" (worst of %d runs)", len(d.Runs))
	if len(d.Runs) == 1 {
		runs = ""
	}
	var aside []string
	if w.PodFailedBeforeDeletion > 0 {
		aside = append(aside, fmt.Sprintf("%d failed before the deletion (not about it)", w.PodFailedBeforeDeletion))
	}
	if w.PodFailedProxyReload > 0 {
		aside = append(aside, fmt.Sprintf("%d closed by the proxy's reload (the emulation's mechanism, not counted)", w.PodFailedProxyReload))
	}
	tail := exitWords(w)
	if len(aside) > 0 {
		tail += "; " + strings.Join(aside, ", ")
	}
	if d.safe() {
		return "safe: 0 failed" + runs + "; " + tail
	}
	var why []string
	if n := w.newPodFailed(); n > 0 {
		why = append(why, fmt.Sprintf("%d sent by the proxy to the new pod before its app served them (%s)", n, joinWords(f.Readiness)))
	}
	if w.PodFailedPropagation > 0 {
		why = append(why, fmt.Sprintf("%d sent while the endpoint was still registered (the pod stopped serving before the proxy stopped sending to it: %s)", w.PodFailedPropagation, holdWords(f, d)))
	}
	if w.PodFailedDrain > 0 {
		why = append(why, fmt.Sprintf("%d in flight at %s (work the app held and dropped when told to stop)", w.PodFailedDrain, f.StopSignal))
	}
	if w.PodFailedElsewhere > 0 {
		why = append(why, fmt.Sprintf("%d sent after the endpoint was gone (the pods left, or the proxy, failed them)", w.PodFailedElsewhere))
	}
	if w.PodFailedAfterKill > 0 {
		why = append(why, fmt.Sprintf("%d at the grace period's SIGKILL", w.PodFailedAfterKill))
	}
	if w.PodKilled {
		why = append(why, fmt.Sprintf("SIGKILLed: terminationGracePeriodSeconds %d ended before it exited", int(f.Grace/time.Second)))
	}
	if d.anyHookFailed() && w.PodFailedPropagation == 0 {
		why = append(why, "the preStop hook failed (FailedPreStopHook; see above)")
	}
	if w.PodFailed == 0 {
		return fmt.Sprintf("UNSAFE: no request failed%s, but %s; %s", runs, strings.Join(why, "; "), tail)
	}
	return fmt.Sprintf("UNSAFE: %d failed%s: %s; %s", w.PodFailed, runs, strings.Join(why, "; "), tail)
}

// joinWords explains a new pod's failures by its readiness probe.
func joinWords(readiness string) string {
	if readiness == "" {
		return "without a readinessProbe the pod is ready, and joins the endpoints, as soon as its container started"
	}
	return "its readinessProbe, " + readiness + ", passed before the app served every request"
}

// readinessText is the answer about the new pod at the stated delay ("":
// it failed nothing there).
func readinessText(f manifestFacts, stated *delayRuns) string {
	if stated == nil || len(stated.Runs) == 0 || stated.worst().newPodFailed() == 0 {
		return ""
	}
	// A re-run with the probe needs the load to outlast the app's start
	// too: newPodStartBound and two periods of 1 s more.
	measure := fmt.Sprintf("not measured in this run; to measure it: --set action.terminate.new_pod.readiness.path=%s --set action.terminate.new_pod.readiness.period=1s --set load.duration=%s",
		f.ReadyPath, dur(f.Load+newPodStartBound+2*time.Second))
	if f.Readiness == "" {
		return "new pods: give the container a readinessProbe (httpGet on a path that answers 2xx only once the app serves): without one, a new pod takes traffic while its app still starts (" + measure + ")"
	}
	return "new pods: the readinessProbe " + f.Readiness + " passed before the app served: probe a path that answers 2xx only once the app serves, or raise initialDelaySeconds (not measured in this run)"
}

// holdWords explains a propagation failure by the preStop hook that was
// to hold the stop signal back: a failed one held nothing.
func holdWords(f manifestFacts, d delayRuns) string {
	switch {
	case d.anyHookFailed():
		return "its preStop hook failed, so nothing held the stop signal back"
	case d.Sleep > 0:
		return "its preStop sleep " + dur(d.Sleep) + " ended first"
	case f.Sleep >= 0:
		return "its preStop sleep " + dur(f.Sleep) + " ended first"
	case f.HookKind != "":
		return "its preStop hook ended first"
	}
	return "no preStop sleep holds the stop signal back"
}

// exitWords says how the run's pod ended.
func exitWords(r podRun) string {
	switch {
	case r.PodDeletionToExitMs == nil:
		return "did not exit within the window"
	case r.Core.ExitCode != nil && *r.Core.ExitCode != 0:
		return fmt.Sprintf("exited %d, %.1f s after the deletion", *r.Core.ExitCode, *r.PodDeletionToExitMs/1000)
	}
	return fmt.Sprintf("exited %.1f s after the deletion", *r.PodDeletionToExitMs/1000)
}

// graceText is the grace period the measured exits need: the later of
// the slowest deletion-to-exit and the keep-alive bound, plus 2 s (the
// kubelet's own floor), in whole seconds.
func graceText(f manifestFacts) string {
	killed, slowest := 0, 0.0
	for _, d := range f.Delays {
		for _, r := range d.Runs {
			if r.PodKilled {
				killed++
			} else if r.PodDeletionToExitMs != nil {
				slowest = max(slowest, *r.PodDeletionToExitMs)
			}
		}
	}
	g := int(f.Grace / time.Second)
	if killed > 0 {
		return fmt.Sprintf("grace period: SIGKILLed in %s: the preStop hook and the drain need more than terminationGracePeriodSeconds %d; raise it, or make %s stop the app sooner (the signal search below, when it ran, says which signal does)", runsWords(killed), g, f.StopSignal)
	}
	if slowest == 0 {
		return "grace period: no run exited to measure it"
	}
	bound := float64(keepAliveBound(f) / time.Millisecond)
	if bound <= slowest {
		need := int(math.Ceil(slowest/1000)) + 2
		return fmt.Sprintf("grace period: the pod exited at most %.1f s after its deletion; it needs terminationGracePeriodSeconds %d (the slowest exit + 2 s), the manifest gives %d", slowest/1000, need, g)
	}
	need := int(math.Ceil(bound/1000)) + 2
	return fmt.Sprintf("grace period: the pod exited at most %.1f s after its deletion here, and on a cluster can take until %.1f s (%s); it needs terminationGracePeriodSeconds %d (the later + 2 s), the manifest gives %d",
		slowest/1000, bound/1000, keepAliveWhy(f), need, g)
}

// searchText is the pre-stop search's answer: the smallest candidate
// sleep that measured safe at the stated delay ("" without a search).
func searchText(f manifestFacts) string {
	if len(f.Search) == 0 {
		if f.Interrupted && len(searchSleeps(f)) > 0 {
			return fmt.Sprintf("to make it safe at %s: not measured: the check was interrupted before its pre-stop search", dur(f.Stated))
		}
		return ""
	}
	var tried []string
	for _, c := range f.Search {
		if c.safe() {
			return fmt.Sprintf("to make it safe at %s: preStop sleep %s measured safe (the smallest whole-second sleep tried; lifecycle.preStop.sleep.seconds: %d)%s%s",
				dur(f.Stated), dur(c.Sleep), int(c.Sleep/time.Second), triedBefore(tried), nativeSleepWords(f))
		}
		if len(c.Runs) > 0 {
			tried = append(tried, fmt.Sprintf("%s: %d failed", dur(c.Sleep), c.worst().PodFailed))
		} else {
			tried = append(tried, dur(c.Sleep)+": "+noRunText(c, f.Interrupted))
		}
	}
	if f.Interrupted {
		return fmt.Sprintf("to make it safe at %s: the pre-stop search was interrupted before a sleep measured safe (%s)", dur(f.Stated), strings.Join(tried, ", "))
	}
	return fmt.Sprintf("no preStop sleep tried measured safe at %s (%s): what fails is not the propagation alone; see the rules above", dur(f.Stated), strings.Join(tried, ", "))
}

func triedBefore(tried []string) string {
	if len(tried) == 0 {
		return ""
	}
	return "; not enough: " + strings.Join(tried, ", ")
}

func dur(d time.Duration) string { return scenarios.Duration(d).String() }

func listOr(xs []string, none string) string {
	if len(xs) == 0 {
		return none
	}
	return strings.Join(xs, ", ")
}

// manifestJUnit is the manifest check's JUnit suite: a case per delay
// (failing when unsafe there, an error without a valid run) and one for
// the verdict at the stated delay, carrying its text.
func manifestJUnit(o manifestOpts, f manifestFacts, code int, text string) junitSuite {
	class := "shutdownlab.check." + checkName("manifest-"+strings.ToLower(o.pod.Kind)+"-"+o.pod.Name)
	suite := junitSuite{Name: "shutdownlab check --manifest " + o.pod.File}
	for _, d := range f.Delays {
		c := junitCase{Name: "propagation " + dur(d.Delay), Class: class, Output: delayText(d, f)}
		switch {
		case len(d.Runs) == 0:
			c.Error = &junitProblem{Message: "no valid run", Text: c.Output}
		case !d.safe():
			c.Failure = &junitProblem{Message: c.Output, Text: c.Output}
		}
		suite.Cases = append(suite.Cases, c)
	}
	total := junitCase{Name: "rollout verdict at " + dur(f.Stated), Class: class, Output: text}
	switch code {
	case VerdictDefect:
		total.Failure = &junitProblem{Message: "unsafe at the propagation delay " + dur(f.Stated), Text: text}
	case VerdictUnclear:
		total.Error = &junitProblem{Message: "could not tell: see the verdict", Text: text}
	}
	suite.Cases = append(suite.Cases, total)
	suite.tally()
	return suite
}
