package main

// The remedies of check's verdict, and the small helpers the verdict's
// texts share (verdict.go has the answers and signatures).

import (
	"fmt"
	"math"
	"strings"
)

// remedies says what would make the shutdown clean — which STOPSIGNAL,
// which grace period, which change to the app — from the signatures and
// the answers.
func remedies(actions []actionRuns, sigs []finding) []finding {
	var out []finding
	add := func(kind, text string) { out = append(out, finding{"", "fix:" + kind, true, text}) }
	has := func(kind string) bool {
		for _, s := range sigs {
			if s.Kind == kind {
				return true
			}
		}
		return false
	}
	if has(sigNoSignal) {
		add(sigNoSignal, "make the stop signal reach the app: an exec-form ENTRYPOINT/CMD (not `sh -c` or `npm start`), an init as PID 1 that forwards it (`docker run --init`, tini), or STOPSIGNAL set to a signal the app handles (try `--signal SIGINT`, or `--set target.init=true`)")
	}
	if has(sigNoDelay) {
		// Advice, not a defect: with no balancer in front (as check runs it)
		// nothing else could serve those clients.
		out = append(out, finding{"", "fix:" + sigNoDelay, false, "advice, behind a load balancer: keep serving for a propagation delay after the signal (readiness failing, listener open) before closing the listener, so clients and load balancers stop sending first (a few seconds; a preStop sleep on Kubernetes)"})
	}
	if has(sigRestarts) {
		add(sigRestarts, "its stop signal restarts it, so no grace period helps: set STOPSIGNAL to a signal that stops it (the signal search measures them: --signals), or change what the server does on that signal (see its documentation)")
		return out
	}
	var sig, stop *actionRuns
	for i := range actions {
		if actions[i].Stop {
			stop = &actions[i]
		} else {
			sig = &actions[i]
		}
	}
	sigClean, need := sig != nil && allClean(*sig), slowestCleanExit(actions)
	switch {
	case stop != nil && !allClean(*stop) && sigClean && sig.Signal != stop.Signal:
		add("stopsignal", fmt.Sprintf("STOPSIGNAL %s: it shuts down cleanly on %s, and docker stop sends %s", sig.Signal, sig.Signal, stop.Signal))
	case stop != nil && (has(sigDrainTooLong) || anyKilled(*stop) && need > 0 && !has(sigNoSignal)):
		grace := fmt.Sprintf("longer than %d s", stop.GraceS)
		if need = max(need, slowestDrain(actions)); need > 0 {
			grace = fmt.Sprintf("of at least %d s (its slowest drain or clean exit took %.0f ms)", int(math.Ceil(need*1.5/1000))+1, need)
		}
		add("grace", "give it a grace period "+grace+" (docker stop -t, compose stop_grace_period, Kubernetes terminationGracePeriodSeconds), or bound its drain below the grace period")
	case stop != nil && need > 0.5*float64(stop.GraceS)*1000:
		add("grace", fmt.Sprintf("cutting it close: its slowest clean exit took %.0f ms of the %d s grace period; give it at least %d s", need, stop.GraceS, int(math.Ceil(need*1.5/1000))+1))
	}
	for _, a := range actions {
		for _, r := range a.Runs {
			if exitClass(r) == findExitDied && val(r.DroppedInflight)+val(r.FailedInDeliveryWindow) > 0 {
				add("handler", "handle the stop signal: stop accepting, finish the requests in flight, then exit 0 (without a handler the process dies at once and every request in flight fails)")
				return out
			}
		}
	}
	return out
}

// allClean: every run of a exited 0 by itself and dropped nothing.
func allClean(a actionRuns) bool {
	for _, r := range a.Runs {
		if exitClass(r) != findExit || val(r.DroppedInflight)+val(r.FailedInDeliveryWindow) > 0 {
			return false
		}
	}
	return len(a.Runs) > 0
}

// anyKilled: some run of a was SIGKILLed.
func anyKilled(a actionRuns) bool {
	for _, r := range a.Runs {
		if r.Killed {
			return true
		}
	}
	return false
}

// slowestDrain is the longest drain_observed_ms of any run.
func slowestDrain(actions []actionRuns) float64 {
	need := 0.0
	for _, a := range actions {
		for _, r := range a.Runs {
			need = max(need, val64(r.DrainObservedMs))
		}
	}
	return need
}

// slowestCleanExit is the longest exit_after_ms of a run that exited 0.
func slowestCleanExit(actions []actionRuns) float64 {
	need := 0.0
	for _, a := range actions {
		for _, r := range a.Runs {
			if exitClass(r) == findExit {
				need = max(need, val64(r.ExitAfterMs))
			}
		}
	}
	return need
}

func val(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func val64(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// ofRuns is " (in k of n runs)", or "" when every run of one agrees.
func ofRuns(k, n int) string {
	if n <= 1 || k == n {
		return ""
	}
	return fmt.Sprintf(" (in %d of %d runs)", k, n)
}

// msRange formats a millisecond metric over runs: "12 ms" or "12-40 ms".
func msRange(rs []runMetrics, get func(runMetrics) *float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rs {
		if p := get(r); p != nil {
			lo, hi = min(lo, *p), max(hi, *p)
		}
	}
	switch {
	case math.IsInf(lo, 1):
		return "an unknown time"
	case math.Round(lo) == math.Round(hi):
		return fmt.Sprintf("%.0f ms after the action", lo)
	}
	return fmt.Sprintf("%.0f-%.0f ms after the action", lo, hi)
}

// codes lists the distinct exit codes of rs.
func codes(rs []runMetrics) string {
	var out []string
	for _, r := range rs {
		if r.ExitCode != nil {
			c := fmt.Sprint(*r.ExitCode)
			if !strings.Contains(" "+strings.Join(out, " ")+" ", " "+c+" ") {
				out = append(out, c)
			}
		}
	}
	return strings.Join(out, ", ")
}
