package check

import (
	"fmt"
	"math"

	"github.com/shutdownlab/shutdownlab/report"
)

// The verdict of `shutdownlab check`: plain-word answers, computed from the
// metrics of each action's valid runs by a pure function (verdict), to the
// questions a user has about an image's shutdown — does it drop in-flight
// work, does it exit by itself, how fast, which known broken-shutdown
// signature does it show, and what would make it clean.

// runMetrics are the metrics of one run the verdict reads: the core
// metrics as report computes them (docs/metrics.md), each field declared
// once, in report.Metrics.
type runMetrics = report.Metrics

// actionRuns is one action of a check (a variant) and its valid runs.
type actionRuns struct {
	// Action names it in words: "signal SIGTERM", "docker stop -t 10".
	Action string
	// Stop is true for docker stop (the grace period ends in SIGKILL).
	Stop bool
	// Signal is the signal the action sends first: the signal of a signal
	// action, the image's STOPSIGNAL (SIGTERM by default) for docker stop.
	Signal string
	// GraceS is the grace period in seconds (the container's StopTimeout).
	GraceS int
	// WindowS is how long the harness watched for an exit.
	WindowS int
	// Runs are the valid runs' metrics.
	Runs []runMetrics
	// Recorded counts the action's runs that ran at all (valid or not),
	// Incomplete those an interrupt cut short; Interrupted is true when
	// the check was stopped before its end (Ctrl-C, SIGTERM, SIGHUP).
	Recorded, Incomplete int
	Interrupted          bool
	// Overlapped names its runs that overlapped with another shutdownlab
	// session ("run 1 overlapped with another shutdownlab session (ID)").
	Overlapped []string
}

// notMeasured says that an interrupt is why a variant (an action, a
// delay) of recorded runs, incomplete of them cut short, has no valid
// run; "" when it is not.
func notMeasured(recorded, incomplete int, interrupted bool) string {
	switch {
	case incomplete > 0:
		return "not measured: the check was interrupted during its run (kept in the report as incomplete, not counted)"
	case interrupted && recorded == 0:
		return "not measured: the check was interrupted before it ran"
	}
	return ""
}

// actionNoRuns says why an action has no valid run: an interrupt, or
// else what the report says.
func actionNoRuns(a actionRuns, report string) string {
	if s := notMeasured(a.Recorded, a.Incomplete, a.Interrupted); s != "" {
		return s
	}
	return "no valid run: " + report
}

// Finding kinds.
const (
	findDrops       = "drops"      // in-flight work failed
	findNoDrops     = "no-drops"   // nothing in flight failed
	findWindowOnly  = "window"     // only requests written while the signal was on its way failed
	findExit        = "exit"       // exited by itself, code 0
	findExitDied    = "exit-died"  // exited at once by dying of the signal (no handler)
	findExitOther   = "exit-other" // exited by itself with another non-zero code
	findKilled      = "killed"     // SIGKILLed (137)
	findNever       = "never"      // did not exit within the window
	findNoRuns      = "no-runs"    // no valid run to judge
	findUnclear     = "unclear"    // drops could not be told (phase_inconclusive)
	sigNoSignal     = "signal-never-arrives"
	sigNoDelay      = "no-propagation-delay"
	sigDrainTooLong = "drain-exceeds-grace"
	sigRestarts     = "signal-restarts"
	sigStuck        = "drain-stuck"  // SIGKILLed holding accepted work, none answered after the signal
	sigCutHangs     = "cut-and-hang" // cut its work at the signal, then did not exit
	fixClean        = "clean"
	// findOther is a trouble that is not about shutdown (failures before
	// any signal); it is named apart and is no defect of the shutdown.
	findOther = "other"
	// findOverlap notes a run another session's containers overlapped
	// (overlapFindings); no defect.
	findOverlap = "overlap"
)

// finding is one line of the verdict.
type finding struct {
	// Action is the action it is about ("" for the whole image).
	Action string
	// Kind is one of the find*, sig* and fix* constants.
	Kind string
	// Bad marks a finding that is a problem.
	Bad bool
	// Text says it in plain words.
	Text string
	// Evidence is, for a remedy, the measurement of this check that backs
	// it ("signal SIGQUIT: exit 0 after 310 ms, nothing it had accepted
	// failed"); empty when it is a suggestion nothing here measured.
	Evidence string
	// Unmeasured is, for a suggestion without Evidence, how to measure it
	// (the flag or --set that would), or why check cannot.
	Unmeasured string
	// Signal is the stop signal a remedy recommends, if any: never one
	// this check measured to drop work or not stop the server.
	Signal string
}

// extras are the measurements check makes after its first verdict, when
// that verdict names a defect: the capacity variant and the signal search.
type extras struct {
	// capacity is the capacity variant (nil: not run).
	capacity *capacityResult
	// search is the signal search (nil: not run).
	search *searchResult
	// searchSkipped says why the search did not run ("": it ran, or no
	// defect called for it).
	searchSkipped string
}

// verdict answers the check's questions for each action, names the known
// broken-shutdown signatures the runs show, says what would make the
// shutdown clean, and names apart the troubles that are not about shutdown.
// Pure: its only input is the metrics.
func verdict(actions []actionRuns) []finding { return verdictWith(actions, extras{}) }

// verdictWith is verdict with check's later measurements: their lines, and
// the remedies they back or rule out.
func verdictWith(actions []actionRuns, ex extras) []finding {
	var out, sigs []finding
	for _, a := range actions {
		if len(a.Runs) == 0 {
			out = append(out, finding{Action: a.Action, Kind: findNoRuns, Bad: true, Text: actionNoRuns(a, "nothing to judge (the report's \"Runs not counted\" says why; an image that never got ready needs the right --ready-path or --port)")})
			continue
		}
		as := signatures(a)
		out = append(append(out, answers(a)...), as...)
		sigs = append(sigs, as...)
	}
	out = append(out, capacityLines(ex.capacity)...)
	if ex.search != nil {
		out = append(out, searchLines(*ex.search)...)
	} else if ex.searchSkipped != "" {
		out = append(out, finding{Action: "signal search", Kind: "search", Text: ex.searchSkipped})
	}
	fixes := remedies(actions, sigs, ex)
	if !anyBad(out) && !anyBad(fixes) {
		text := "clean: no request it had accepted failed, and it exited by itself with code 0"
		for _, a := range actions {
			if a.Stop {
				text += fmt.Sprintf("; STOPSIGNAL %s and a %d s grace period are enough (slowest exit %.0f ms)", a.Signal, a.GraceS, slowestCleanExit(actions))
			}
		}
		fixes = append([]finding{{Kind: fixClean, Text: text}}, fixes...)
	}
	return append(append(out, fixes...), otherTroubles(actions)...)
}

// anyBad reports whether some finding is a problem.
func anyBad(fs []finding) bool {
	for _, f := range fs {
		if f.Bad {
			return true
		}
	}
	return false
}

// verdictCode is check's exit code for its findings: unclear when an
// action had no valid run or its drops could not be told, a defect when a
// finding is a problem, clean otherwise. Advice (no propagation delay,
// a tight grace period) and troubles that are not about shutdown are not
// defects.
func verdictCode(fs []finding) int {
	code := VerdictClean
	for _, f := range fs {
		switch {
		case f.Kind == findNoRuns || f.Kind == findUnclear:
			return VerdictUnclear
		case f.Bad:
			code = VerdictDefect
		}
	}
	return code
}

// answers are the per-action answers: drops in-flight work? exits by
// itself, and how fast?
func answers(a actionRuns) []finding {
	n := len(a.Runs)
	var out []finding
	out = append(out, dropAnswer(a))
	classes := map[string][]runMetrics{}
	var order []string
	for _, r := range a.Runs {
		k := exitClass(r)
		if classes[k] == nil {
			order = append(order, k)
		}
		classes[k] = append(classes[k], r)
	}
	for _, k := range order {
		rs := classes[k]
		out = append(out, finding{Action: a.Action, Kind: k, Bad: k != findExit, Text: exitText(a, k, rs) + ofRuns(len(rs), n)})
	}
	return out
}

// dropAnswer says whether the image drops in-flight work. A request written
// before the signal was sent that failed is a drop. One written while the
// signal was on its way is not one the client can judge: it may be a drop
// or the idle-close race, so it is reported as such, not as a drop. When
// slow signal delivery could hide drops (phase_inconclusive) the answer is
// "cannot tell", never "no".
func dropAnswer(a actionRuns) finding {
	n := len(a.Runs)
	dropRuns, unclearRuns, windowRuns, dropped, window := 0, 0, 0, 0, 0
	for _, r := range a.Runs {
		d, w := val(r.DroppedInflight), val(r.FailedInDeliveryWindow)
		switch {
		case d > 0:
			dropRuns++
		case r.PhaseInconclusive:
			unclearRuns++
		case w > 0:
			windowRuns++
		}
		dropped, window = max(dropped, d), max(window, w)
	}
	switch {
	case dropRuns > 0:
		return finding{Action: a.Action, Kind: findDrops, Bad: true, Text: fmt.Sprintf(
			"drops in-flight work: yes%s: requests it had accepted failed (dropped_inflight up to %d, failed_in_delivery_window up to %d)",
			ofRuns(dropRuns, n), dropped, window)}
	case unclearRuns > 0:
		return finding{Action: a.Action, Kind: findUnclear, Bad: true, Text: fmt.Sprintf(
			"drops in-flight work: cannot tell%s: the signal took so long to arrive that up to %s failed on its way (phase_inconclusive); rerun on a quieter engine",
			ofRuns(unclearRuns, n), requests(window))}
	case windowRuns > 0:
		return finding{Action: a.Action, Kind: findWindowOnly, Bad: false, Text: fmt.Sprintf(
			"drops in-flight work: no request written before the signal failed; up to %d written while it was on its way failed%s "+
				"(a drop or the idle-close race: the client cannot tell which)", window, ofRuns(windowRuns, n))}
	}
	return finding{Action: a.Action, Kind: findNoDrops, Bad: false, Text: "drops in-flight work: no" + ofRuns(n, n)}
}

// exitClass classifies how a run's acted-on replica ended.
func exitClass(r runMetrics) string {
	switch {
	case r.ExitCode == nil:
		return findNever
	case r.Killed || *r.ExitCode == 137:
		return findKilled
	case *r.ExitCode == 0:
		return findExit
	case *r.ExitCode > 128 && *r.ExitCode < 160 || *r.ExitCode == 2 && val64(r.ExitAfterMs) < 1000:
		return findExitDied
	}
	return findExitOther
}

// exitText answers "exits by itself?" and "how fast?" for runs of one class.
func exitText(a actionRuns, class string, rs []runMetrics) string {
	when := msRange(rs, func(r runMetrics) *float64 { return r.ExitAfterMs })
	switch class {
	case findNever:
		return fmt.Sprintf("exits by itself: no, still running %d s after the %s", a.WindowS, a.Action)
	case findKilled:
		if a.Stop {
			return fmt.Sprintf("exits by itself: no, SIGKILLed at the end of the %d s grace period (exit 137, %s)", a.GraceS, when)
		}
		return "exits by itself: no, killed (exit 137, " + when + ")"
	case findExit:
		return "exits by itself: yes, exit code 0, " + when
	case findExitDied:
		return fmt.Sprintf("exits by itself: yes, but at once, by dying of the signal (exit %s, %s): no shutdown handler drained anything", codes(rs), when)
	}
	return fmt.Sprintf("exits by itself: yes, with exit code %s, %s", codes(rs), when)
}

// otherTroubles names, apart from the shutdown verdict, the failures that
// happened before any signal in any action's runs: not about shutdown,
// and no defect of it.
func otherTroubles(actions []actionRuns) []finding {
	failed, idle := 0, 0
	for _, a := range actions {
		for _, r := range a.Runs {
			failed, idle = max(failed, val(r.FailedBeforeSignal)), max(idle, val(r.IdleCloseBeforeSignal))
		}
	}
	switch {
	case failed == 0:
		return nil
	case idle > 0:
		return []finding{{Kind: findOther, Text: fmt.Sprintf(
			"up to %s per run failed before any signal, %d of them eof/reset on a reused keep-alive connection with no response byte: this server closes keep-alive connections (after a response, or when idle) without saying so (no Connection: close); clients that reuse connections see it on every deploy and none",
			requests(failed), idle)}}
	}
	return []finding{{Kind: findOther, Text: fmt.Sprintf(
		"up to %s per run failed before any signal (failed_before_signal; the report's by_class says how)", requests(failed))}}
}

// nearGrace reports whether a run ended about when the grace period did.
func nearGrace(r runMetrics, graceS int) bool {
	if r.ExitAfterMs == nil || graceS <= 0 {
		return r.Killed
	}
	g := float64(graceS) * 1000
	return math.Abs(*r.ExitAfterMs-g) <= max(1500, 0.25*g)
}
