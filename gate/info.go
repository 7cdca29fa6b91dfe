package gate

import (
	"fmt"
	"io"
	"strings"

	"github.com/shutdownlab/shutdownlab/report"
)

// Info says what a comparison compared: the scenario, the variants, the
// valid runs on each side and the tolerances, plus notes (fields one side
// does not record).
type Info struct {
	// NewScenario and OldScenario are the two results' scenario names.
	NewScenario, OldScenario string
	// Variants are the new result's variant labels, in order.
	Variants []string
	// Runs maps a variant label (of either side) to its run counts.
	Runs map[string]RunCounts
	// Tolerance is the one applied.
	Tolerance Tolerance
	// Notes are printed under the summary.
	Notes []string
}

// RunCounts are one variant's valid and total runs on each side.
type RunCounts struct {
	NewValid, NewTotal, OldValid, OldTotal int
}

// NewInfo describes the comparison of newRes with oldRes under tol.
func NewInfo(newRes, oldRes *report.Result, tol Tolerance) Info {
	info := Info{NewScenario: newRes.Scenario, OldScenario: oldRes.Scenario, Variants: labels(newRes),
		Runs: map[string]RunCounts{}, Tolerance: tol}
	for i := range newRes.Variants {
		v := &newRes.Variants[i]
		c := info.Runs[v.Label]
		c.NewValid, c.NewTotal = len(v.ValidMetrics()), len(v.Runs)
		info.Runs[v.Label] = c
	}
	for i := range oldRes.Variants {
		v := &oldRes.Variants[i]
		c := info.Runs[v.Label]
		c.OldValid, c.OldTotal = len(v.ValidMetrics()), len(v.Runs)
		info.Runs[v.Label] = c
	}
	return info
}

// write prints the summary lines.
func (info Info) write(b *strings.Builder) {
	scen := "`" + info.NewScenario + "`"
	if info.OldScenario != info.NewScenario {
		scen = fmt.Sprintf("new `%s`, baseline `%s`", info.NewScenario, info.OldScenario)
	}
	var nv, nt, ov, ot int
	for _, c := range info.Runs {
		nv, nt, ov, ot = nv+c.NewValid, nt+c.NewTotal, ov+c.OldValid, ot+c.OldTotal
	}
	fmt.Fprintf(b, "- Scenario: %s\n- Variants: %s\n- Valid runs: new %d of %d, baseline %d of %d\n- Tolerances: %s\n",
		scen, strings.Join(info.Variants, ", "), nv, nt, ov, ot, info.Tolerance)
	for _, n := range info.Notes {
		fmt.Fprintf(b, "- Note: %s\n", n)
	}
}

// WriteNotComparable writes the verdict for two results that cannot be
// compared: what was given, and every reason.
func WriteNotComparable(w io.Writer, info Info, reasons []string) error {
	var b strings.Builder
	b.WriteString("## Comparison with the baseline result\n\n**Not comparable**: nothing was compared, no verdict on regressions.\n\n")
	info.write(&b)
	b.WriteString("\nWhy:\n\n")
	for _, r := range reasons {
		fmt.Fprintf(&b, "- %s\n", r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
