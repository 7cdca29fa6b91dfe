package check

import (
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities"
	"github.com/shutdownlab/shutdownlab/capabilities/pod"
	"github.com/shutdownlab/shutdownlab/capabilities/pod/podmetrics"
	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// notFoundHook is a preStop exec of a command the image does not have,
// as the runner records it from Docker's exec (exit 126).
func notFoundHook() *record.HookRun {
	return &record.HookRun{Kind: "exec", Command: []string{"sleep", "3"}, Code: 126, Error: "exit code 126",
		Output: `OCI runtime exec failed: exec failed: unable to start container process: exec: "sleep": executable file not found in $PATH: unknown`}
}

// hookRun is run r with its preStop hook's record h.
func hookRun(r podRun, h *record.HookRun) podRun {
	failed := h.Failed()
	r.Hook, r.PodHookFailed = h, &failed
	return r
}

// execFacts are the facts of a manifest whose preStop hook is `exec
// sleep 3`.
func execFacts(stated time.Duration, ds ...delayRuns) manifestFacts {
	f := facts(stated, ds...)
	f.Termination, f.Sleep, f.HookKind, f.HookCommand = `preStop exec ["sleep", "3"], then SIGTERM`, -1, kube.HookExec, []string{"sleep", "3"}
	return f
}

// TestManifestVerdictHookFailed: a preStop hook that failed is named as
// the kubelet sees it (FailedPreStopHook, the stop signal at once), makes
// the check a defect even when no request failed, explains the
// propagation failures by it, and every preStop advice then names the
// native sleep, which needs nothing of the image.
func TestManifestVerdictHookFailed(t *testing.T) {
	s := time.Second
	failedProp := hookRun(pr(23, 23, 0, 0, false, 100), notFoundHook())
	failedClean := hookRun(pr(0, 0, 0, 0, false, 100), notFoundHook())
	ran := hookRun(pr(0, 0, 0, 0, false, 3400), &record.HookRun{Kind: "exec", Command: []string{"sleep", "3"}})
	for _, tt := range []struct {
		name   string
		f      manifestFacts
		code   int
		want   []string
		absent []string
	}{
		{"the command is not in the image: propagation failures", func() manifestFacts {
			f := execFacts(2*s, at(0, failedProp), at(2*s, failedProp))
			f.Search = []delayRuns{{Delay: 2 * s, Sleep: 2 * s, Runs: []podRun{pr(3, 3, 0, 0, false, 2500)}}, {Delay: 2 * s, Sleep: 3 * s, Runs: []podRun{pr(0, 0, 0, 0, false, 3500)}}}
			return f
		}(), VerdictDefect, []string{
			`  hook: preStop exec ["sleep", "3"] failed (exit 126: command not found in the image; output: "OCI runtime exec failed: `,
			"): the kubelet records FailedPreStopHook and sends the stop signal at once (in every run)",
			"propagation 2s: UNSAFE: 23 failed: 23 sent while the endpoint was still registered (the pod stopped serving before the proxy stopped sending to it: its preStop hook failed, so nothing held the stop signal back)",
			"at your propagation delay, 2s: UNSAFE",
			"preStop: the hook failed, so the pod got its stop signal at once: this exec only sleeps: lifecycle.preStop.sleep.seconds: 3 does the same; a native lifecycle.preStop.sleep (Kubernetes 1.30+) needs no shell or sleep binary in the image",
			"preStop sleep 3s measured safe (the smallest whole-second sleep tried; lifecycle.preStop.sleep.seconds: 3); not enough: 2s: 3 failed; a native lifecycle.preStop.sleep (Kubernetes 1.30+) needs no shell or sleep binary in the image",
		}, []string{"no preStop sleep holds the stop signal back", "(FailedPreStopHook; see above); exited"}},
		{"no request failed: still a defect, never safe", execFacts(2*s, at(2*s, failedClean)), VerdictDefect, []string{
			"failed (exit 126: command not found in the image", "(in the run)",
			"propagation 2s: UNSAFE: no request failed, but the preStop hook failed (FailedPreStopHook; see above)",
			"at your propagation delay, 2s: UNSAFE", "measured safe at: none",
			"a native lifecycle.preStop.sleep (Kubernetes 1.30+) needs no shell or sleep binary in the image",
		}, []string{"SAFE: no request failed and the pod exited by itself"}},
		{"failed at one delay only", execFacts(2*s, at(0, ran), at(2*s, failedClean)), VerdictDefect, []string{"(in 1 of 2 runs)", "propagation 0s: safe"}, nil},
		{"an exec hook that ran is no failure", execFacts(2*s, at(2*s, ran)), VerdictClean, []string{"at your propagation delay, 2s: SAFE"},
			[]string{"FailedPreStopHook", "hook:", "native"}},
		{"an exec that ran, then propagation failures: the hook ended first", execFacts(2*s, at(2*s, hookRun(pr(5, 5, 0, 0, false, 3400), &record.HookRun{Kind: "exec", Command: []string{"sleep", "3"}}))),
			VerdictDefect, []string{"its preStop hook ended first"}, []string{"native", "no preStop sleep holds"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text, code := manifestVerdict(tt.f)
			if code != tt.code {
				t.Errorf("code %d, want %d\n%s", code, tt.code, text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("verdict lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tt.absent {
				if strings.Contains(text, w) {
					t.Errorf("verdict has %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestExecSleep: an exec hook that only sleeps is read as whole seconds.
func TestExecSleep(t *testing.T) {
	for _, tt := range []struct {
		cmd  []string
		want int
		ok   bool
	}{
		{[]string{"sleep", "3"}, 3, true},
		{[]string{"/bin/sleep", "2.5"}, 3, true},
		{[]string{"sleep", "5s"}, 5, true},
		{[]string{"/bin/sh", "-c", "sleep 10"}, 10, true},
		{[]string{"bash", "-c", " sleep  4 "}, 4, true},
		{[]string{"sh", "-c", "sleep 3 && nginx -s quit"}, 0, false},
		{[]string{"nginx", "-s", "quit"}, 0, false},
		{[]string{"sleep", "infinity"}, 0, false},
		{[]string{"sleep"}, 0, false},
		{nil, 0, false},
	} {
		if got, ok := execSleep(tt.cmd); got != tt.want || ok != tt.ok {
			t.Errorf("execSleep(%q) = %d, %v; want %d, %v", tt.cmd, got, ok, tt.want, tt.ok)
		}
	}
}

// TestManifestVerdictInterrupted: after an interrupt a delay that never
// ran, or whose run was cut short, says so; the judged delay, unmeasured,
// could not be told because of the interrupt; nothing blames the ready
// path or the port.
func TestManifestVerdictInterrupted(t *testing.T) {
	s := time.Second
	clean := pr(0, 0, 0, 0, false, 3400)
	f := facts(2*s, at(0, clean), delayRuns{Delay: s, Recorded: 1, Incomplete: 1}, delayRuns{Delay: 2 * s})
	f.Interrupted = true
	text, code := manifestVerdict(f)
	if code != VerdictUnclear {
		t.Errorf("code %d, want %d", code, VerdictUnclear)
	}
	for _, w := range []string{
		"  interrupted: the check was stopped before its end (Ctrl-C, SIGTERM or SIGHUP); what it did not measure is said so below",
		"propagation 0s: safe: 0 failed",
		"propagation 1s: not measured: the check was interrupted during its run (kept in the report as incomplete, not counted)",
		"propagation 2s: not measured: the check was interrupted before it ran",
		"at your propagation delay, 2s: could not tell: the check was interrupted before it was measured",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("verdict lacks %q:\n%s", w, text)
		}
	}
	for _, w := range []string{"ready-path", "--port", "Runs not counted"} {
		if strings.Contains(text, w) {
			t.Errorf("verdict has %q:\n%s", w, text)
		}
	}
	// Interrupted once the judged delay was unsafe: the search it would
	// have run is said not to have run.
	f = facts(2*s, at(2*s, pr(9, 9, 0, 0, false, 2000)))
	f.Sleep, f.Interrupted = -1, true
	if text, _ := manifestVerdict(f); !strings.Contains(text, "to make it safe at 2s: not measured: the check was interrupted before its pre-stop search") {
		t.Errorf("verdict lacks the search it did not run:\n%s", text)
	}
}

// TestManifestVerdictOverlap: runs that overlapped with another
// shutdownlab session, in the sweep or the pre-stop search, are named in
// the verdict as report.md names them.
func TestManifestVerdictOverlap(t *testing.T) {
	s := time.Second
	d := at(2*s, pr(0, 0, 0, 0, false, 3400))
	d.Overlapped = []string{"run 1 overlapped with another shutdownlab session (s-other)"}
	f := facts(2*s, d)
	f.Search = []delayRuns{{Delay: 2 * s, Sleep: 3 * s, Runs: []podRun{pr(0, 0, 0, 0, false, 3500)},
		Overlapped: []string{"run 1 overlapped with another shutdownlab session (s-third)"}}}
	text, _ := manifestVerdict(f)
	for _, w := range []string{
		"  note: propagation 2s: run 1 overlapped with another shutdownlab session (s-other): its timings may be disturbed",
		"  note: pre-stop search, sleep 3s: run 1 overlapped with another shutdownlab session (s-third): its timings may be disturbed",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("verdict lacks %q:\n%s", w, text)
		}
	}
	if text, _ := manifestVerdict(facts(2*s, at(2*s, pr(0, 0, 0, 0, false, 3400)))); strings.Contains(text, "overlapped") {
		t.Errorf("a run without overlap: %s", text)
	}
}

// TestReadRuns: a delay's facts come from its variant's runs: the valid
// ones with their hook's record, all that ran, those an interrupt cut
// short, those another session overlapped.
func TestReadRuns(t *testing.T) {
	capabilities.Install() // the runs carry pod parts, as after the program's Main
	term := func(h *record.HookRun) *record.Action {
		return (&record.Action{Kind: record.ActionTerminate}).With(&record.Termination{DeletedNs: 1, Hook: h})
	}
	valid := func(n int, h *record.HookRun, overlap ...string) report.Run {
		var m report.Metrics
		failed := h.Failed()
		m.SetPart(pod.Need, &podmetrics.Metrics{PodHookFailed: &failed})
		return report.Run{Meta: record.Meta{Run: n, Action: term(h), OverlappedWith: overlap}, Metrics: m, Valid: true}
	}
	res := &report.Result{Variants: []report.Variant{
		{Label: "proxy.deregister_after=2s", Runs: []report.Run{
			valid(1, notFoundHook(), "s-other"),
			{Meta: record.Meta{Run: 2, Incomplete: true}},
		}},
		{Label: "proxy.deregister_after=0s", Runs: []report.Run{valid(1, &record.HookRun{Kind: "sleep"})}},
	}}
	var d delayRuns
	readRuns(&d, res, "proxy.deregister_after=2s")
	if len(d.Runs) != 1 || d.Recorded != 2 || d.Incomplete != 1 || !d.Runs[0].hookFailed() || d.Runs[0].Hook.Code != 126 {
		t.Fatalf("delay %+v", d)
	}
	if want := "run 1 overlapped with another shutdownlab session (s-other)"; len(d.Overlapped) != 1 || d.Overlapped[0] != want {
		t.Errorf("overlapped %q, want %q", d.Overlapped, want)
	}
	var none delayRuns
	readRuns(&none, res, "proxy.deregister_after=5s")
	if none.Recorded != 0 || len(none.Runs) != 0 {
		t.Errorf("a variant that never ran: %+v", none)
	}
}

// TestPodRunOf: a run is read from the report's own metric types, its
// core fields from the core metrics; a null pod_failed_new_pod (no new
// pod) counts no failure sent to a new pod; metrics without the pod part
// are no termination run.
func TestPodRunOf(t *testing.T) {
	capabilities.Install()
	m := report.Metrics{MaxMs: fp(120), ExitCode: ip(0)}
	if _, ok := podRunOf(&m); ok {
		t.Fatal("metrics without the pod part read as a termination run")
	}
	m.SetPart(pod.Need, &podmetrics.Metrics{PodFailed: 2, PodFailedPropagation: 2})
	r, ok := podRunOf(&m)
	if !ok || r.PodFailed != 2 || r.newPodFailed() != 0 || val64(r.Core.MaxMs) != 120 || val(r.Core.ExitCode) != 0 {
		t.Fatalf("read %+v", r)
	}
	m.SetPart(pod.Need, &podmetrics.Metrics{PodFailed: 3, PodFailedNewPod: ip(3)})
	if r, _ := podRunOf(&m); r.newPodFailed() != 3 {
		t.Errorf("new pod failures %d, want 3", r.newPodFailed())
	}
}
