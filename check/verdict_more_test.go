package check

import (
	"slices"
	"strings"
	"testing"
)

// restarted is a run of a server whose stop signal restarts it: 18
// requests dropped at the signal, 20 new connections served after it,
// still running (code -1) or SIGKILLed at the grace period (137).
func restarted(code int) runMetrics {
	r := run(18, 1, 19, 400, code, 10020)
	r.NewConnsAfterSignal, r.ConnsOpenedAfterSignal = ip(20), ip(20)
	return r
}

// TestVerdictCode: check is a gate. Each row names the rule it pins.
func TestVerdictCode(t *testing.T) {
	inconclusive := run(0, 20, 20, 0, 0, 980)
	inconclusive.DroppedInflight, inconclusive.PhaseInconclusive = nil, true
	noDelay := run(0, 0, 12, 0, 0, 300) // failed after the signal while running, none served: (ii)
	keepAliveCloser := run(0, 0, 36, 40, 0, 330)
	keepAliveCloser.FailedBeforeSignal, keepAliveCloser.IdleCloseBeforeSignal = ip(36), ip(36)
	tests := []struct {
		name    string
		actions []actionRuns
		want    int
	}{
		// clean: nothing accepted failed, exit 0 by itself
		{"clean", []actionRuns{sigAction(run(0, 0, 0, 40, 0, 330)), stopAction(run(0, 0, 0, 40, 0, 340))}, VerdictClean},
		// a fast shutdown that exits 0 but drops in-flight work is a defect
		{"drops, exit 0", []actionRuns{sigAction(run(20, 0, 20, 0, 0, 12)), stopAction(run(20, 0, 20, 0, 0, 15))}, VerdictDefect},
		// SIGKILLed at the grace period is a defect
		{"killed", []actionRuns{stopAction(run(0, 0, 0, 300, 137, 10030))}, VerdictDefect},
		// stopping to accept at once is advice, not a defect, with no balancer in front
		{"(ii) only", []actionRuns{sigAction(noDelay), stopAction(noDelay)}, VerdictClean},
		// failures before any signal are not about shutdown
		{"keep-alive closer", []actionRuns{sigAction(keepAliveCloser), stopAction(keepAliveCloser)}, VerdictClean},
		// a phase split the signal's delivery made unreadable: could not tell
		{"inconclusive", []actionRuns{sigAction(inconclusive), stopAction(run(0, 0, 0, 40, 0, 340))}, VerdictUnclear},
		// no valid run: could not tell
		{"no runs", []actionRuns{sigAction(), stopAction(run(0, 0, 0, 40, 0, 340))}, VerdictUnclear},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := verdict(tc.actions)
			if got := verdictCode(fs); got != tc.want {
				t.Errorf("code %d, want %d; findings:\n%s", got, tc.want, verdictText(checkOpts{image: "x:1"}, fs))
			}
		})
	}
}

// TestRestartSignature: a server whose stop signal restarts it gets the
// restart signature and never the advice of a longer grace period (no
// grace period ever helps there), nor signature (i) or (iii).
func TestRestartSignature(t *testing.T) {
	fs := verdict([]actionRuns{sigAction(restarted(-1)), stopAction(restarted(137))})
	text := verdictText(checkOpts{image: "x:1", stopSignal: "SIGTERM", graceS: 10, runs: 1}, fs)
	k := kinds(fs)
	if !slices.Contains(k, sigRestarts) || slices.Contains(k, sigDrainTooLong) || slices.Contains(k, sigNoSignal) {
		t.Errorf("kinds %q: want %s, not %s or %s", k, sigRestarts, sigDrainTooLong, sigNoSignal)
	}
	if strings.Contains(text, "grace period of at least") || strings.Contains(text, "give it a grace period") {
		t.Errorf("a restart got grace-period advice:\n%s", text)
	}
	if !strings.Contains(text, "the stop signal restarts the server") || verdictCode(fs) != VerdictDefect {
		t.Errorf("code %d, text:\n%s", verdictCode(fs), text)
	}
	// Without new connections after the signal it is not a restart: a
	// drain cut by SIGKILL while it still answered keeps its signature (iii).
	cut := withDrain(run(5, 0, 5, 0, 137, 10010), 9000)
	cut.DroppedAtKill = ip(5)
	if k := kinds(verdict([]actionRuns{stopAction(cut)})); slices.Contains(k, sigRestarts) || !slices.Contains(k, sigDrainTooLong) {
		t.Errorf("drain cut by SIGKILL: kinds %q", k)
	}
	// A slow restart: the listener stayed open, but nothing opened after
	// the signal was answered within the run (the reload outlasted the
	// load). It is still a restart, never (iii).
	slow := restarted(137)
	slow.NewConnsAfterSignal, slow.DrainObservedMs = ip(0), fp(2498)
	if k := kinds(verdict([]actionRuns{stopAction(slow)})); !slices.Contains(k, sigRestarts) || slices.Contains(k, sigDrainTooLong) {
		t.Errorf("slow restart: kinds %q, want %s and not %s", k, sigRestarts, sigDrainTooLong)
	}
	// A server that closes keep-alive connections unannounced before any
	// signal has clients reconnecting all the time: its new connections
	// after the signal are no evidence of a restart.
	closer := restarted(-1)
	closer.IdleCloseBeforeSignal = ip(30)
	if k := kinds(verdict([]actionRuns{sigAction(closer)})); slices.Contains(k, sigRestarts) {
		t.Errorf("keep-alive closer read as a restart: kinds %q", k)
	}
}

// TestOtherTroublesApart: failures before any signal are named in their
// own section, not in the shutdown findings.
func TestOtherTroublesApart(t *testing.T) {
	r := run(0, 0, 36, 40, 0, 330)
	r.FailedBeforeSignal, r.IdleCloseBeforeSignal = ip(36), ip(35)
	text := verdictText(checkOpts{image: "x:1", stopSignal: "SIGTERM", graceS: 10, runs: 1}, verdict([]actionRuns{sigAction(r), stopAction(r)}))
	i := strings.Index(text, "  not about shutdown:\n    - up to 36 requests per run failed before any signal, 35 of them eof/reset on a reused keep-alive connection")
	if i < 0 || !strings.Contains(text[:i], "clean: ") {
		t.Errorf("want the shutdown verdict (clean) first and the keep-alive trouble apart:\n%s", text)
	}
}

// TestSearchFindings: the first clean signal in the search's order is
// recommended; a restart and an ignored signal are named as such; with
// none clean, check says so and what is left.
func TestSearchFindings(t *testing.T) {
	cand := func(sig string, r runMetrics) actionRuns {
		return actionRuns{Action: sig, Signal: sig, GraceS: 10, WindowS: 6, Runs: []runMetrics{r}}
	}
	ignored := run(0, 0, 0, 300, -1, 0)
	tests := []struct {
		name  string
		cands []actionRuns
		want  []string
	}{
		{"QUIT clean after INT drops", []actionRuns{cand("SIGINT", run(19, 1, 20, 0, 0, 8)), cand("SIGQUIT", run(0, 0, 0, 20, 0, 320)),
			cand("SIGHUP", restarted(-1)), cand("SIGWINCH", ignored), cand("SIGUSR1", run(0, 0, 0, 20, 0, 330))},
			[]string{"SIGINT: exit 0 after 8 ms, dropped 19 requests in flight", "SIGQUIT: clean: exit 0 after 320 ms",
				"SIGHUP: restarts the server", "SIGWINCH: no effect seen", "STOPSIGNAL SIGQUIT: measured clean"}},
		{"none clean", []actionRuns{cand("SIGQUIT", ignored), cand("SIGINT", run(20, 0, 20, 0, 2, 5))},
			[]string{"no signal of SIGQUIT, SIGINT stopped it cleanly within 6 s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var texts []string
			for _, f := range searchFindings(searchResult{cands: tc.cands, watch: 6}) {
				texts = append(texts, f.Text)
			}
			all := strings.Join(texts, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("lacks %q:\n%s", w, all)
				}
			}
		})
	}
}
