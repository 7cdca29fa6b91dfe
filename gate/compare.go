package gate

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/shutdownlab/shutdownlab/report"
)

// Tolerance says how much worse a new result may be before Compare calls it
// a regression.
type Tolerance struct {
	// Abs: a loss count regresses when new median − old median > Abs.
	// Default 0: one more lost request is a regression.
	Abs float64
	// Ratio: a latency regresses when new median / old median > Ratio.
	// Values <= 0 mean the default, 1.2.
	Ratio float64
	// MinMs is the noise floor of latencies: a latency regresses only
	// when it also grew by more than MinMs milliseconds. Default
	// (DefaultMinMs) 25: two identical runs of the same build measured
	// 15.1 and 20.4 ms (x1.35) on the reference machine, and the
	// harness's own timing (container scheduling on 2 shared cores, the
	// agent's clock reads) moves small values by tens of ms; a ratio on
	// values that small is noise, not a regression. 0 turns the floor off.
	MinMs float64
}

// DefaultMinMs is the default latency noise floor in ms (Tolerance.MinMs).
const DefaultMinMs = 25

// DefaultTolerance is Abs 0, Ratio 1.2, MinMs 25 (DefaultMinMs).
func DefaultTolerance() Tolerance { return Tolerance{Ratio: 1.2, MinMs: DefaultMinMs} }

// String states the tolerances as the comparison applies them.
func (t Tolerance) String() string {
	return fmt.Sprintf("a loss count regresses when new − old > %g; a latency when new / old > %g and new − old > %g ms (noise floor)",
		t.Abs, t.Ratio, t.MinMs)
}

// Verdicts of a Regression row.
const (
	VerdictOK            = "ok"
	VerdictRegressed     = "REGRESSED"
	VerdictBetter        = "better"
	VerdictNA            = "n/a"            // null on both sides
	VerdictIncomparable  = "not comparable" // null on one side only
	VerdictMissingInNew  = "missing in new"
	VerdictMissingInOld  = "missing in old"
	VerdictNoValidRunNew = "no valid run in new"
	VerdictNoValidRunOld = "no valid run in old"
)

// Regression is one row of a comparison: one metric of one variant (or the
// whole variant, when Metric is empty), old against new.
type Regression struct {
	// Variant is the variant label; Metric the metric name, empty for a
	// variant-level row (a variant missing on one side, or without valid
	// runs).
	Variant string
	Metric  string
	// Old and New are the medians over the valid runs (for exit_code:
	// the codes, as report.Cell prints them), formatted.
	Old, New string
	// Change is "+3" (counts), "x1.35" (latencies), "changed" (codes),
	// "NEVER 1/3" (a replica that stopped exiting).
	Change string
	// Regressed is true when the row fails the gate; Verdict says why
	// (one of the Verdict constants).
	Regressed bool
	Verdict   string
}

// Compare compares newRes with oldRes variant by variant (matched by
// label, in newRes order, then variants only in oldRes), over the valid
// runs of each:
// the metrics whose catalog definition (report.MetricDef.Compare) says
// how to compare them:
//   - losses (report.CompareLoss: failed, dropped_inflight, every failure
//     by_class key, ...) regress when the new median exceeds the old one by
//     more than tol.Abs;
//   - latencies (report.CompareLatency: p99_ms, exit_after_ms, ...) regress
//     when new median / old median > tol.Ratio and new − old > tol.MinMs;
//     a NEVER (null exit_after_ms) in a new run when no old run had one
//     regresses;
//   - codes (report.CompareCodes: exit_code) regress when the set of codes
//     differs.
//
// A variant missing in newRes is a regression (its coverage was lost); one
// missing in oldRes is listed, not a regression. A variant without valid
// runs on either side gets one row, not a regression (the invalid runs
// make the exit code 2).
func Compare(newRes, oldRes *report.Result, tol Tolerance) []Regression {
	if tol.Ratio <= 0 {
		tol.Ratio = 1.2
	}
	rows := compareRows(newRes, oldRes)
	var out []Regression
	for i := range newRes.Variants {
		nv := &newRes.Variants[i]
		j := variantIndex(oldRes, nv.Label)
		if j < 0 {
			out = append(out, Regression{Variant: nv.Label, Verdict: VerdictMissingInOld})
			continue
		}
		out = append(out, compareVariant(nv, &oldRes.Variants[j], rows, tol)...)
	}
	for i := range oldRes.Variants {
		if variantIndex(newRes, oldRes.Variants[i].Label) < 0 {
			out = append(out, Regression{Variant: oldRes.Variants[i].Label, Verdict: VerdictMissingInNew, Regressed: true})
		}
	}
	return out
}

// compareRows returns the compared metric definitions in table order.
func compareRows(newRes, oldRes *report.Result) []report.MetricDef {
	var ms []*report.Metrics
	for _, res := range []*report.Result{newRes, oldRes} {
		for i := range res.Variants {
			for j := range res.Variants[i].Runs {
				ms = append(ms, &res.Variants[i].Runs[j].Metrics)
			}
		}
	}
	var out []report.MetricDef
	for _, d := range report.Rows(ms) {
		if d.Compare != report.CompareNone {
			out = append(out, d)
		}
	}
	return out
}

// compareVariant compares one variant present on both sides.
func compareVariant(nv, ov *report.Variant, rows []report.MetricDef, tol Tolerance) []Regression {
	nm, om := nv.ValidMetrics(), ov.ValidMetrics()
	switch {
	case len(nm) == 0:
		return []Regression{{Variant: nv.Label, Verdict: VerdictNoValidRunNew}}
	case len(om) == 0:
		return []Regression{{Variant: nv.Label, Verdict: VerdictNoValidRunOld}}
	}
	var out []Regression
	for _, d := range rows {
		ns, os := spreadOver(d, nm), spreadOver(d, om)
		r := Regression{Variant: nv.Label, Metric: d.Name, Old: medianCell(d, os), New: medianCell(d, ns), Verdict: VerdictOK}
		switch d.Compare {
		case report.CompareCodes:
			compareCodes(&r, d, ns, os)
		case report.CompareLatency:
			compareLatency(&r, d, ns, os, tol)
		default:
			compareCount(&r, ns, os, tol)
		}
		out = append(out, r)
	}
	return out
}

func spreadOver(d report.MetricDef, ms []*report.Metrics) report.Spread {
	vals := make([]report.Value, len(ms))
	for i, m := range ms {
		vals[i] = d.Get(m)
	}
	return report.SpreadOf(d, vals)
}

// medianCell prints a spread's median, with its nulls.
func medianCell(d report.MetricDef, s report.Spread) string {
	if d.Kind == report.KindCode {
		return report.Cell(d, s)
	}
	null := d.Null
	if null == "" {
		null = "null"
	}
	if s.Median == nil {
		return fmt.Sprintf("%s %d/%d", null, s.Nulls, s.N)
	}
	out := report.FormatNumber(d.Kind, *s.Median)
	if s.Nulls > 0 {
		out += fmt.Sprintf(" (%d %s)", s.Nulls, null)
	}
	return out
}

// bothMedians handles null medians; it reports whether both are numbers.
func bothMedians(r *Regression, ns, os report.Spread) bool {
	switch {
	case ns.Median == nil && os.Median == nil:
		r.Verdict = VerdictNA
	case ns.Median == nil || os.Median == nil:
		r.Verdict = VerdictIncomparable
	default:
		return true
	}
	return false
}

func compareCount(r *Regression, ns, os report.Spread, tol Tolerance) {
	if !bothMedians(r, ns, os) {
		return
	}
	diff := *ns.Median - *os.Median
	r.Change = fmt.Sprintf("%+g", diff)
	if diff == 0 {
		r.Change = "0"
	}
	switch {
	case diff > tol.Abs:
		r.Regressed, r.Verdict = true, VerdictRegressed
	case diff < 0:
		r.Verdict = VerdictBetter
	}
}

func compareLatency(r *Regression, d report.MetricDef, ns, os report.Spread, tol Tolerance) {
	if d.Null == "NEVER" && ns.Nulls > 0 && os.Nulls == 0 {
		r.Change = fmt.Sprintf("NEVER %d/%d", ns.Nulls, ns.N)
		r.Regressed, r.Verdict = true, VerdictRegressed
		return
	}
	if !bothMedians(r, ns, os) {
		return
	}
	n, o := *ns.Median, *os.Median
	grew := n-o > tol.MinMs
	if o > 0 {
		r.Change = fmt.Sprintf("x%.2f", n/o)
		grew = grew && n/o > tol.Ratio
	} else {
		r.Change = report.FormatNumber(d.Kind, n-o) + " ms"
		if n >= o {
			r.Change = "+" + r.Change
		}
	}
	switch {
	case grew:
		r.Regressed, r.Verdict = true, VerdictRegressed
	case n < o:
		r.Verdict = VerdictBetter
	}
}

func compareCodes(r *Regression, d report.MetricDef, ns, os report.Spread) {
	codes := func(s report.Spread) []int {
		var out []int
		for _, c := range s.Codes {
			out = append(out, c.Code)
		}
		if s.Nulls > 0 {
			out = append(out, -1) // NEVER
		}
		return out
	}
	if slices.Equal(codes(ns), codes(os)) {
		r.Change = "same"
		return
	}
	r.Change = "changed"
	r.Regressed, r.Verdict = true, VerdictRegressed
}

// Regressed reports whether any row is a regression.
func Regressed(rs []Regression) bool {
	return slices.ContainsFunc(rs, func(r Regression) bool { return r.Regressed })
}

// CompareExitCode maps a comparison to the exit code of gate:
// ExitHarness when newInvalid > 0 (runs of the new result that do not
// count), else ExitFail when any row regressed, else ExitPass.
func CompareExitCode(newInvalid int, rs []Regression) int {
	switch {
	case newInvalid > 0:
		return ExitHarness
	case Regressed(rs):
		return ExitFail
	}
	return ExitPass
}

// InvalidRuns counts the runs of res that do not count.
func InvalidRuns(res *report.Result) int {
	n := 0
	for i := range res.Variants {
		n += len(res.Variants[i].Invalid())
	}
	return n
}

// WriteComparison writes rs as markdown: a headline with the number of
// regressions (or no verdict, when no metric could be compared), what was
// compared (info), then per variant a table
// (metric, old, new, change, verdict) of medians over valid runs;
// variant-level rows as one line.
func WriteComparison(w io.Writer, info Info, rs []Regression) error {
	var b strings.Builder
	n, compared := 0, 0
	for _, r := range rs {
		if r.Regressed {
			n++
		}
		if r.Metric != "" {
			compared++
		}
	}
	fmt.Fprintf(&b, "## Comparison with the baseline result\n\n")
	switch {
	case n > 0:
		fmt.Fprintf(&b, "**%d %s.** ", n, plural(n, "regression"))
	case compared == 0:
		// A new result without a valid run (a killed harness) is not
		// "no regression": nothing was compared.
		b.WriteString("**No verdict**: no variant has a valid run on both sides, so no metric was compared. ")
	default:
		b.WriteString("No regression. ")
	}
	b.WriteString("Old and new are medians over each variant's valid runs.\n\n")
	info.write(&b)
	variant := "\x00"
	for _, r := range rs {
		if r.Variant != variant {
			variant = r.Variant
			fmt.Fprintf(&b, "\n### %s\n\n", variant)
			if c, ok := info.Runs[variant]; ok {
				fmt.Fprintf(&b, "Valid runs: new %d of %d, baseline %d of %d.\n\n", c.NewValid, c.NewTotal, c.OldValid, c.OldTotal)
			}
			if r.Metric != "" {
				b.WriteString("| metric | old | new | change | verdict |\n|---|---|---|---|---|\n")
			}
		}
		if r.Metric == "" {
			v := r.Verdict
			if r.Regressed {
				v = "**" + v + "** (regression)"
			}
			fmt.Fprintf(&b, "Variant %s.\n", v)
			continue
		}
		v := r.Verdict
		if r.Regressed {
			v = "**" + v + "**"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.Metric, r.Old, r.New, r.Change, v)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
