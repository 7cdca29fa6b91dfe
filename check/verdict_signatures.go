package check

// The known broken-shutdown signatures check names, read per run from its
// metrics: the stop signal restarts the server; (i) the signal never
// reaches the app; (ii) no propagation delay; (iii) a drain longer than
// the grace period; a drain that made no progress; work cut at the signal
// with no exit after it. docs/metrics.md says how each one is decided.

import "fmt"

// signatures names the known broken-shutdown shapes the runs of a show.
func signatures(a actionRuns) []finding {
	var t sigTally
	for _, r := range a.Runs {
		t.add(a, r)
	}
	return t.findings(a)
}

// sigTally counts, over an action's runs, the runs of each signature and
// the figures their texts quote.
type sigTally struct {
	restarts, none, delay, drain, late, stuck, hangs int
	newConns, restartDrops, lateFails, races         int
	atKill, stuckHeld, hangDrops                     int
	drainMs, lateMs                                  float64
}

// add counts run r of action a under the signatures it shows.
func (t *sigTally) add(a actionRuns, r runMetrics) {
	inflight := val(r.DroppedInflight) + val(r.FailedInDeliveryWindow)
	if restartsOnSignal(r) {
		t.restarts++
		t.newConns, t.restartDrops = max(t.newConns, val(r.ConnsOpenedAfterSignal)), max(t.restartDrops, inflight)
		return // neither (i) nor (iii): no grace period helps here
	}
	switch {
	case r.Killed && nearGrace(r, a.GraceS) && inflight == 0:
		t.none++
	case !a.Stop && r.ExitCode == nil && inflight == 0 && val(r.ServedAfterSignal) > 0:
		t.none++ // the same shape without a SIGKILL at the end
	}
	if r.FailedWhileRunning != nil {
		late := *r.FailedWhileRunning - inflight - val(r.FailedBeforeSignal)
		if late > 0 && val(r.ServedAfterSignal) == 0 {
			t.delay++
			t.lateFails, t.races = max(t.lateFails, late), max(t.races, val(r.IdleCloseRace))
		}
	}
	c := exitClass(r)
	switch {
	case r.Killed && val(r.DroppedAtKill) > 0 && drainProgressed(r):
		t.drain++
		t.atKill, t.drainMs = max(t.atKill, val(r.DroppedAtKill)), max(t.drainMs, val64(r.DrainObservedMs))
	case r.Killed && val(r.DroppedAtKill) > 0:
		t.stuck++
		t.stuckHeld = max(t.stuckHeld, val(r.DroppedAtKill))
	case !a.Stop && a.GraceS > 0 && (c == findExit || c == findExitOther) && val64(r.ExitAfterMs) > float64(a.GraceS)*1000:
		t.late++
		t.lateMs = max(t.lateMs, val64(r.ExitAfterMs))
	case (c == findNever || c == findKilled) && inflight > 0:
		t.hangs++
		t.hangDrops = max(t.hangDrops, inflight)
	}
}

// drainProgressed: after the signal the server still answered work it had
// accepted, or new requests: its drain was measurably going on.
func drainProgressed(r runMetrics) bool {
	return r.DrainObservedMs != nil || val(r.ServedAfterSignal) > 0
}

// findings are the tally's signature lines for action a.
func (t *sigTally) findings(a actionRuns) []finding {
	n := len(a.Runs)
	var out []finding
	add := func(kind string, bad bool, format string, args ...any) {
		out = append(out, finding{Action: a.Action, Kind: kind, Bad: bad, Text: fmt.Sprintf(format, args...)})
	}
	if t.restarts > 0 {
		add(sigRestarts, true, "signature: the stop signal restarts the server%s: up to %s in flight or on their way failed at the signal, yet it kept running, its listener took %d new connections after it (answered at once or after the restart) and it never exited by itself: %s means \"restart\" (or \"reload\") to it, not \"stop\"; no grace period helps",
			ofRuns(t.restarts, n), requests(t.restartDrops), t.newConns, a.Signal)
	}
	if t.none > 0 {
		add(sigNoSignal, true, "signature (i), the signal never reaches the app%s: nothing failed around the signal and it kept serving until it was killed (or the window ended); its PID 1 or a shell in front of it swallowed the signal, or it ignores this one",
			ofRuns(t.none, n))
	}
	if t.delay > 0 {
		race := ""
		if t.races > 0 {
			race = fmt.Sprintf(", %d of them eof/reset on a reused keep-alive connection (idle_close_race)", t.races)
		}
		add(sigNoDelay, false, "signature (ii), no propagation delay%s: up to %s failed after the signal while the process still ran%s, and none was served after it: it stops accepting the moment it is told to stop",
			ofRuns(t.delay, n), requests(t.lateFails), race)
	}
	if t.drain > 0 {
		seen := ""
		if t.drainMs > 0 {
			seen = fmt.Sprintf(", after answering accepted work until %.0f ms after the signal (drain_observed_ms)", t.drainMs)
		}
		add(sigDrainTooLong, true, "signature (iii), drain longer than the grace period%s: SIGKILL came with up to %s it had accepted still in flight (dropped_at_kill)%s",
			ofRuns(t.drain, n), requests(t.atKill), seen)
	}
	if t.late > 0 {
		add(sigDrainTooLong, true, "signature (iii), drain longer than the grace period%s: it exited by itself only %.0f ms after the signal, later than the %d s grace period allows: docker stop would SIGKILL it first",
			ofRuns(t.late, n), t.lateMs, a.GraceS)
	}
	if t.stuck > 0 {
		add(sigStuck, true, "SIGKILLed%s with up to %s it had accepted still open, none answered after the signal: its drain made no measurable progress (stuck, or each request takes longer than the %d s grace period)",
			ofRuns(t.stuck, n), requests(t.stuckHeld), a.GraceS)
	}
	if t.hangs > 0 {
		add(sigCutHangs, true, "signature: cuts the work in flight at the signal, then does not exit%s: up to %s failed at the signal and the process was still running %s",
			ofRuns(t.hangs, n), requests(t.hangDrops), map[bool]string{true: "until the SIGKILL", false: "when the watch ended"}[a.Stop])
	}
	return out
}

// restartsOnSignal: the run shows a server whose stop signal restarts it —
// it did not exit by itself (still running at the end of the window, or
// SIGKILLed), requests in flight or on their way failed at the signal, and
// a listener still took connections after the signal (a fresh one, or one
// a master kept while its workers came back: answered at once, late, or
// not at all within the watch — however long the restart takes). A
// server that already closed keep-alive connections unannounced before the
// signal makes clients reconnect anyway, so new connections say nothing
// there: no restart is read from such a run.
func restartsOnSignal(r runMetrics) bool {
	c := exitClass(r)
	return (c == findNever || c == findKilled) && val(r.ConnsOpenedAfterSignal) > 0 &&
		val(r.DroppedInflight)+val(r.FailedInDeliveryWindow) > 0 && val(r.IdleCloseBeforeSignal) == 0
}
