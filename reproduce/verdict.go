package reproduce

import "strings"

// Status is the outcome of judging one claim on one runtime.
type Status string

// The verdict statuses.
const (
	// Reproduced: the measured shape matches the published one.
	Reproduced Status = "reproduced"
	// Differs: the scenario ran, but the measured shape does not match;
	// Verdict.Why says which check failed (and why, when it is known).
	Differs Status = "differs"
	// NotApplicable: the claim cannot be measured on this runtime (the
	// scenario does not run it).
	NotApplicable Status = "not_applicable"
	// NotRun: nothing to judge: the scenario failed or was not run, a
	// variant has no valid run, or a metric is not computed by this build.
	NotRun Status = "not_run"
)

// Verdict is one claim judged on one runtime's result.
type Verdict struct {
	// Status is the outcome.
	Status Status
	// Measured is the measured cells, variant by variant
	// ("mode=none: dropped_inflight 20; exit_after_ms 290 / 301 / 320").
	Measured string
	// Rule is the rule the verdict was reached by, in words.
	Rule string
	// Why explains a differs (the failed checks and, when known, the
	// runtime's reason), a not_run or a not_applicable; empty otherwise.
	Why string
	// Cells are the measured cells Measured is made of.
	Cells []Cell
}

// Cell is one metric of one variant, formatted as report.md formats it.
type Cell struct {
	// Variant is the variant label (without the runtime), Metric the
	// metric name, Text the report cell ("min / median / max", "NEVER 3/3").
	Variant, Metric, Text string
}

// measuredText joins cells into one line per variant.
func measuredText(cells []Cell) string {
	var parts []string
	var cur string
	for _, c := range cells {
		if c.Variant != cur || len(parts) == 0 {
			cur = c.Variant
			parts = append(parts, c.Variant+": "+c.Metric+" "+c.Text)
			continue
		}
		parts[len(parts)-1] += "; " + c.Metric + " " + c.Text
	}
	return strings.Join(parts, " · ")
}
