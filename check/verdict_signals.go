package check

// What one check measured of each signal it sent — its own variants and
// the signal search's — so that no remedy recommends a signal a
// measurement refuted.

import (
	"fmt"
	"regexp"
	"slices"
)

// signalMeasures are the check's measurements by signal, in the order they
// were made (the signal variant first, then the search's candidates).
type signalMeasures struct {
	// clean are the search's candidates that stopped cleanly
	// (stopsCleanly), in the search's order.
	clean []actionRuns
	// bad names each signal some measurement saw drop work or not stop
	// the server, with what it saw.
	bad map[string]string
	// order is the bad signals in the order they were measured.
	order []string
}

// measuredSignals gathers the measurements of actions and of the search.
func measuredSignals(actions []actionRuns, search *searchResult) signalMeasures {
	m := signalMeasures{bad: map[string]string{}}
	see := func(a actionRuns, what string, searched bool) {
		if len(a.Runs) == 0 {
			return
		}
		if stopsCleanly(a) {
			if searched {
				m.clean = append(m.clean, a)
			}
			return
		}
		if _, dup := m.bad[a.Signal]; !dup {
			m.order = append(m.order, a.Signal)
			m.bad[a.Signal] = what + ": " + badSummary(a)
		}
	}
	for _, a := range actions {
		see(a, a.Action, false)
	}
	if search != nil {
		for _, c := range search.cands {
			see(c, c.Signal, true)
		}
	}
	return m
}

// stopsCleanly: a has runs, and its answers name no problem — it exited 0
// by itself and nothing written before the signal failed (a failure of a
// request written while the signal was on its way may be the idle-close
// race: the client cannot tell it from a drop, and it is no defect).
func stopsCleanly(a actionRuns) bool { return len(a.Runs) > 0 && !anyBad(answers(a)) }

// firstClean is the first signal the search measured clean that no other
// measurement of the check refuted.
func (m signalMeasures) firstClean() (actionRuns, bool) {
	for _, a := range m.clean {
		if _, refuted := m.bad[a.Signal]; !refuted {
			return a, true
		}
	}
	return actionRuns{}, false
}

// badTexts says, per refuted signal, what was measured.
func (m signalMeasures) badTexts() []string {
	var out []string
	for _, s := range m.order {
		out = append(out, m.bad[s])
	}
	return out
}

// badSummary is what an action's first run that was not clean did.
func badSummary(a actionRuns) string {
	for _, r := range a.Runs {
		drops := val(r.DroppedInflight) + val(r.FailedInDeliveryWindow)
		c := exitClass(r)
		switch {
		case c == findExit && drops == 0:
			continue
		case c == findNever || c == findKilled:
			if drops > 0 {
				return fmt.Sprintf("%d requests in flight failed and it did not exit by itself", drops)
			}
			return "it did not exit by itself"
		case drops > 0:
			return fmt.Sprintf("exit %s, %d requests in flight failed", codes([]runMetrics{r}), drops)
		}
		return fmt.Sprintf("exit %s", codes([]runMetrics{r}))
	}
	return "not clean"
}

// signalName finds signal names in a text.
var signalName = regexp.MustCompile(`\bSIG[A-Z0-9]+\b`)

// refutedIn lists the signals a remedy's text names that a measurement of
// the same check refuted: a remedy must name none (the consistency rule).
func (m signalMeasures) refutedIn(f finding) []string {
	var out []string
	for _, s := range signalName.FindAllString(f.Text, -1) {
		if _, bad := m.bad[s]; bad && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if _, bad := m.bad[f.Signal]; bad && f.Signal != "" && !slices.Contains(out, f.Signal) {
		out = append(out, f.Signal)
	}
	return out
}
