package main

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
			out = append(out, finding{"", findOverlap, false, fmt.Sprintf("%s%s: %s: its timings may be disturbed", prefix, a.Action, o)})
		}
	}
	return out
}
