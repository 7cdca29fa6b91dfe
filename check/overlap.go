package check

import (
	"fmt"
	"strings"
)

// overlapWords says that run n overlapped with the other shutdownlab
// sessions ids, as report.md's notes say it.
func overlapWords(n int, ids []string) string {
	return fmt.Sprintf("run %d overlapped with another shutdownlab session (%s)", n, strings.Join(ids, ", "))
}

// overlapFindings are the verdict's notes on the actions' runs that
// overlapped with another shutdownlab session on the engine: their
// timings may be disturbed. No defect: the runs count, as in report.md.
func overlapFindings(actions []actionRuns, prefix string) []finding {
	var out []finding
	for _, a := range actions {
		for _, o := range a.Overlapped {
			out = append(out, finding{Kind: findOverlap, Text: fmt.Sprintf("%s%s: %s: its timings may be disturbed", prefix, a.Action, o)})
		}
	}
	return out
}

// overlaps are the overlap notes of check's later measurements: the
// capacity variant's runs and the signal search's.
func (ex extras) overlaps() []finding {
	var out []finding
	if ex.capacity != nil {
		for _, t := range ex.capacity.tries {
			out = append(out, overlapFindings([]actionRuns{t.a}, fmt.Sprintf("capacity variant at %d clients, ", t.clients))...)
		}
	}
	if ex.search != nil {
		out = append(out, overlapFindings(ex.search.cands, "signal search, ")...)
	}
	return out
}
