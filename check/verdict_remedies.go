package check

// The remedies of check's verdict: what would make the shutdown clean.
// Every remedy is either backed by a measurement of this check (Evidence:
// which variant, what it measured) or marked as a suggestion nothing here
// measured (Unmeasured: the flag that would measure it, or why check
// cannot). No remedy recommends a signal this check saw drop work or fail
// to stop the server, and none advises a grace period to a server that
// restarts, ignores the signal or hangs: a grace period cannot stop a
// process that does not exit. verdict_text.go has the helpers the texts
// share.

import (
	"fmt"
	"math"
	"strings"
)

// remedies says what would make the shutdown clean — which STOPSIGNAL,
// which grace period, which change to the app or its capacity — from the
// signatures, the answers and check's later measurements (ex).
func remedies(actions []actionRuns, sigs []finding, ex extras) []finding {
	m := measuredSignals(actions, ex.search)
	r := remedyList{m: m}
	has := func(kind string) bool {
		for _, s := range sigs {
			if s.Kind == kind {
				return true
			}
		}
		return false
	}
	if has(sigNoDelay) {
		// Advice, not a defect: with no balancer in front (as check runs it)
		// nothing else could serve those clients.
		r.advise(sigNoDelay, "advice, behind a load balancer: keep serving for a propagation delay after the signal (readiness failing, listener open) before closing the listener, so clients and load balancers stop sending first (a few seconds; a preStop sleep on Kubernetes)",
			"check runs no balancer; check --manifest measures a rollout behind one")
	}
	if ex.capacity.explains() {
		r.capacity(*ex.capacity)
		return r.out
	}
	stopSignal := r.stopSignal(actions)
	if has(sigRestarts) {
		lead := "its stop signal restarts it, so no grace period helps: set STOPSIGNAL to a signal that stops it, or change what the server does on that signal (see its documentation)"
		if ex.search != nil {
			lead = "its stop signal restarts it, so no grace period helps: change what the server does on that signal, or stop it the way its documentation gives"
		}
		if !stopSignal && (ex.search != nil || ex.searchSkipped != "") {
			r.noCleanSignal(ex, lead)
		} else if !stopSignal {
			r.suggest("restart", lead, "the signal search measures the other signals: check runs it when it finds a defect")
		}
		return r.out
	}
	if has(sigNoSignal) && !stopSignal {
		text := "make the stop signal reach the app: an exec-form ENTRYPOINT/CMD (not `sh -c` or `npm start`), or an init as PID 1 that forwards it (`docker run --init`, tini)"
		how := "--set target.init=true measures the image behind an init"
		if ex.search == nil {
			text += ", or STOPSIGNAL set to a signal the app handles"
			how += "; the signal search measures the other signals (" + searchHow(ex) + ")"
		}
		r.suggest(sigNoSignal, text, how)
	}
	r.grace(actions, sigs)
	if has(sigStuck) {
		r.suggest("stuck", "find why its drain stalls, or whether its requests outlast the grace period: a longer grace period tells which",
			fmt.Sprintf("--grace-period %ds measures it", 6*max(graceOf(actions), 10)))
	}
	if !stopSignal && (has(sigCutHangs) || diedDropping(actions)) {
		r.suggest("handler", "handle the stop signal: stop accepting, finish the requests in flight, then exit 0 (as it is, the work in flight fails at the signal)",
			"a change to the app: check the new image")
	}
	// What a search measured, or that it was skipped: not for a drain the
	// grace period cut (its remedy is the grace period), nor (i) without a
	// search (its suggestion names the search already).
	searched, skipped := ex.search != nil, ex.searchSkipped != "" && !has(sigNoSignal)
	if !stopSignal && (searched || skipped) && !has(sigDrainTooLong) && !has(sigStuck) {
		r.noCleanSignal(ex, "")
	}
	return r.out
}

// remedyList collects remedies; m is what this check measured of each
// signal.
type remedyList struct {
	m   signalMeasures
	out []finding
}

// measured adds a remedy backed by a measurement.
func (r *remedyList) measured(kind, signal, text, evidence string) {
	r.out = append(r.out, finding{Kind: "fix:" + kind, Bad: true, Text: text, Evidence: evidence, Signal: signal})
}

// suggest adds a remedy nothing here measured, with how to measure it.
func (r *remedyList) suggest(kind, text, how string) {
	r.out = append(r.out, finding{Kind: "fix:" + kind, Bad: true, Text: text, Unmeasured: how})
}

// advise adds advice (no defect), nothing here measured.
func (r *remedyList) advise(kind, text, how string) {
	r.out = append(r.out, finding{Kind: "fix:" + kind, Text: text, Unmeasured: how})
}

// stopSignal recommends, as STOPSIGNAL, a signal that measured clean when
// docker stop did not: the signal variant's (when it differs from the
// image's STOPSIGNAL), else the search's first clean one. It reports
// whether it recommended one.
func (r *remedyList) stopSignal(actions []actionRuns) bool {
	var sig, stop *actionRuns
	for i := range actions {
		if actions[i].Stop {
			stop = &actions[i]
		} else {
			sig = &actions[i]
		}
	}
	if stop != nil && !allClean(*stop) && sig != nil && allClean(*sig) && sig.Signal != stop.Signal {
		r.measured("stopsignal", sig.Signal, fmt.Sprintf("STOPSIGNAL %s: measured clean by the signal variant; docker stop sends the image's own STOPSIGNAL, which did not stop it cleanly", sig.Signal)+setItText(sig.Signal),
			fmt.Sprintf("signal %s: %s, nothing it had accepted failed (%s)", sig.Signal, exitSummary(*sig), runsText(len(sig.Runs))))
		return true
	}
	if s, ok := r.m.firstClean(); ok {
		r.measured("stopsignal-search", s.Signal, fmt.Sprintf("STOPSIGNAL %s: measured clean by the signal search", s.Signal)+setItText(s.Signal),
			fmt.Sprintf("%s: %s, nothing it had accepted failed (signal search, 1 run)", s.Signal, exitSummary(s)))
		return true
	}
	return false
}

// setItText says where a STOPSIGNAL is set.
func setItText(sig string) string {
	return fmt.Sprintf("; set it in the Dockerfile (STOPSIGNAL %s), or docker run --stop-signal %s, compose stop_signal: %s, Kubernetes lifecycle.stopSignal (1.33+)", sig, sig, sig)
}

// grace advises a grace period when the drain outlasted it (iii), or when
// the slowest clean exit used more than half of it.
func (r *remedyList) grace(actions []actionRuns, sigs []finding) {
	g := graceOf(actions)
	if g == 0 {
		return
	}
	exit, exitBy := slowestCleanExitOf(actions)
	drain := slowestDrain(actions)
	tooLong := false
	for _, s := range sigs {
		tooLong = tooLong || s.Kind == sigDrainTooLong
	}
	switch {
	case tooLong && exit > float64(g)*1000:
		r.measured("grace", "", fmt.Sprintf("give it a grace period of at least %d s (docker stop -t, compose stop_grace_period, Kubernetes terminationGracePeriodSeconds), or bound its drain below %d s", secondsFor(exit), g),
			fmt.Sprintf("%s: exit 0 by itself after %.0f ms", exitBy, exit))
	case tooLong:
		r.suggest("grace", fmt.Sprintf("give it a grace period longer than %d s (docker stop -t, compose stop_grace_period, Kubernetes terminationGracePeriodSeconds), or bound its drain below it; it was still answering %.0f ms after the signal", g, drain),
			fmt.Sprintf("no run saw it finish; --grace-period %ds measures how long it needs", max(secondsFor(drain)*2, 2*g)))
	case exit > 0.5*float64(g)*1000:
		r.measured("grace", "", fmt.Sprintf("cutting it close: give it a grace period of at least %d s", secondsFor(exit)),
			fmt.Sprintf("%s: exit 0 by itself after %.0f ms of the %d s grace period", exitBy, exit, g))
	}
}

// secondsFor is a grace period for a drain of ms: half as long again, plus
// one second, in whole seconds.
func secondsFor(ms float64) int { return int(math.Ceil(ms*1.5/1000)) + 1 }

// graceOf is the check's grace period in seconds (0: none known).
func graceOf(actions []actionRuns) int {
	for _, a := range actions {
		if a.GraceS > 0 {
			return a.GraceS
		}
	}
	return 0
}

// noCleanSignal says what the signal search measured when it found no
// clean signal, and what is left (lead, when given, opens it); without a
// search it suggests one.
func (r *remedyList) noCleanSignal(ex extras, lead string) {
	if ex.search == nil {
		text := "STOPSIGNAL set to a signal that stops it cleanly, if the server has one (see its documentation)"
		if lead != "" {
			text = lead
		}
		r.suggest("stopsignal", text, "the signal search measures the candidates: "+searchHow(ex))
		return
	}
	left := "what is left is in the app or its image — a handler that stops accepting, finishes the work in flight and exits 0; an init that forwards the signal (docker run --init, tini) when the app as PID 1 ignores it; a pre-stop hook; or the server's own graceful-stop command or flag (see its documentation)"
	if lead != "" {
		left = lead
	}
	var tried []string
	for _, c := range ex.search.cands {
		tried = append(tried, c.Signal)
	}
	r.measured("no-clean-signal", "", fmt.Sprintf("no signal of %s stopped it cleanly within %d s: %s", strings.Join(tried, ", "), ex.search.watch, left),
		"signal search, 1 run per signal: "+strings.Join(r.m.badTexts(), "; "))
}

// searchHow says how to run the signal search when it did not run.
func searchHow(ex extras) string {
	if ex.searchSkipped != "" {
		return ex.searchSkipped
	}
	return "check runs it when it finds a defect"
}

// capacity is the remedy when the capacity variant explained the drops.
func (r *remedyList) capacity(c capacityResult) {
	r.measured("capacity", "", fmt.Sprintf("give it capacity for its clients: at least %d workers or threads (it served about %.0f requests at once), or a balancer in front that queues requests instead of its listen backlog: the stop cut requests waiting for a worker, not work in progress",
		c.clients0, c.concurrency), c.evidence())
}

// diedDropping: some run died of the signal at once with work in flight.
func diedDropping(actions []actionRuns) bool {
	for _, a := range actions {
		for _, r := range a.Runs {
			if exitClass(r) == findExitDied && val(r.DroppedInflight)+val(r.FailedInDeliveryWindow) > 0 {
				return true
			}
		}
	}
	return false
}
