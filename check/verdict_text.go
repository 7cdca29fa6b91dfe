package check

// Small helpers the verdict's texts and rules share.

import (
	"fmt"
	"math"
	"strings"
)

// allClean: every run of a exited 0 by itself and dropped nothing.
func allClean(a actionRuns) bool {
	for _, r := range a.Runs {
		if exitClass(r) != findExit || val(r.DroppedInflight)+val(r.FailedInDeliveryWindow) > 0 {
			return false
		}
	}
	return len(a.Runs) > 0
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
	ms, _ := slowestCleanExitOf(actions)
	return ms
}

// slowestCleanExitOf is the longest exit_after_ms of a run that exited 0,
// and the action that measured it.
func slowestCleanExitOf(actions []actionRuns) (float64, string) {
	need, by := 0.0, ""
	for _, a := range actions {
		for _, r := range a.Runs {
			if exitClass(r) == findExit && val64(r.ExitAfterMs) > need {
				need, by = val64(r.ExitAfterMs), a.Action
			}
		}
	}
	return need, by
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

// runsText is "1 run" or "n runs".
func runsText(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
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

// requests is n requests in words: "1 request", "3 requests".
func requests(n int) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}
