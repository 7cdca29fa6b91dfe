package reproduce

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shutdownlab/shutdownlab/report"
)

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

// judge collects the cells and checks of one rule over one result. The
// first missing input (variant, valid run, metric) makes the verdict
// not_run; failed checks make it differs.
type judge struct {
	res    *report.Result
	cells  []Cell
	fails  []string
	notRun string
}

func newJudge(res *report.Result) *judge {
	j := &judge{res: res}
	if res == nil {
		j.notRun = "no result"
	}
	return j
}

// ok reports whether every input so far was present.
func (j *judge) ok() bool { return j.notRun == "" }

// missing records the first reason the rule cannot be judged.
func (j *judge) missing(format string, args ...any) {
	if j.notRun == "" {
		j.notRun = fmt.Sprintf(format, args...)
	}
}

// variant returns the variant matching label (see matchLabel), recording
// not_run when there is none or it has no valid run.
func (j *judge) variant(label string) *report.Variant {
	if !j.ok() {
		return nil
	}
	for i := range j.res.Variants {
		if matchLabel(j.res.Variants[i].Label, label) {
			v := &j.res.Variants[i]
			if len(v.ValidMetrics()) == 0 {
				j.missing("variant %s of %s has no valid run", label, j.res.Scenario)
				return nil
			}
			return v
		}
	}
	j.missing("variant %s not in the %s result", label, j.res.Scenario)
	return nil
}

// vals returns a metric's values over the valid runs of the variant
// matching label and records its cell; nil (and not_run) when the variant
// or the metric is missing.
func (j *judge) vals(label, metric string) []report.Value {
	v := j.variant(label)
	if v == nil {
		return nil
	}
	return j.valsOf(v, metric)
}

// valsOf is vals for a variant already found.
func (j *judge) valsOf(v *report.Variant, metric string) []report.Value {
	vals, ok := variantValues(v, metric)
	if !ok {
		j.missing("metric %s is not computed by this build", metric)
		return nil
	}
	d := metricDef(metric)
	j.cells = append(j.cells, Cell{Variant: v.Label, Metric: metric, Text: report.Cell(d, report.SpreadOf(d, vals))})
	return vals
}

// check records a failed check when cond is false.
func (j *judge) check(cond bool, format string, args ...any) {
	if !cond {
		j.fails = append(j.fails, fmt.Sprintf(format, args...))
	}
}

// verdict returns the verdict reached.
func (j *judge) verdict(rule string) Verdict {
	v := Verdict{Rule: rule, Cells: j.cells, Measured: measuredText(j.cells)}
	switch {
	case !j.ok():
		v.Status, v.Why = NotRun, j.notRun
	case len(j.fails) > 0:
		v.Status, v.Why = Differs, strings.Join(j.fails, "; ")
	default:
		v.Status = Reproduced
	}
	return v
}

// matchLabel reports whether a variant label has every key=value part of
// want ("mode=close" matches "runtime=node,mode=close"); want "" matches
// everything.
func matchLabel(label, want string) bool {
	if want == "" || label == want {
		return true
	}
	parts := strings.Split(label, ",")
	for _, w := range strings.Split(want, ",") {
		if !slices.Contains(parts, w) {
			return false
		}
	}
	return true
}

// metricValue returns one metric of one run; a variable so tests can stand
// in metrics this build does not compute yet (the probe metrics).
var metricValue = func(m *report.Metrics, name string) (report.Value, bool) { return m.Value(name) }

// variantValues returns the named metric over the variant's valid runs and
// whether the metric is known.
func variantValues(v *report.Variant, name string) ([]report.Value, bool) {
	ms := v.ValidMetrics()
	out := make([]report.Value, 0, len(ms))
	for _, m := range ms {
		x, ok := metricValue(m, name)
		if !ok {
			return nil, false
		}
		out = append(out, x)
	}
	return out, true
}

// metricDef returns the catalog definition of a metric (by_class.KEY
// included), or a plain count for a name the catalog does not know (a rule
// reads only catalog metrics: TestRuleMetricsInCatalog).
func metricDef(name string) report.MetricDef {
	if d, ok := report.Lookup(name); ok {
		return d
	}
	return report.MetricDef{Name: name, Kind: report.KindCount, Null: "n/a"}
}

// Predicates over one run's value.

func never(x report.Value) bool   { return x.Null }
func isTrue(x report.Value) bool  { return !x.Null && x.V != 0 }
func isFalse(x report.Value) bool { return !x.Null && x.V == 0 }
func atLeast(n float64) func(report.Value) bool {
	return func(x report.Value) bool { return !x.Null && x.V >= n }
}
func below(n float64) func(report.Value) bool {
	return func(x report.Value) bool { return !x.Null && x.V < n }
}
func between(lo, hi float64) func(report.Value) bool {
	return func(x report.Value) bool { return !x.Null && x.V >= lo && x.V < hi }
}
func equals(n float64) func(report.Value) bool {
	return func(x report.Value) bool { return !x.Null && x.V == n }
}

// every reports whether p holds in every run (false without runs).
func every(xs []report.Value, p func(report.Value) bool) bool {
	for _, x := range xs {
		if !p(x) {
			return false
		}
	}
	return len(xs) > 0
}

// some reports whether p holds in at least one run.
func some(xs []report.Value, p func(report.Value) bool) bool {
	return slices.ContainsFunc(xs, p)
}

// count returns how many runs p holds in, as "k/n".
func count(xs []report.Value, p func(report.Value) bool) string {
	k := 0
	for _, x := range xs {
		if p(x) {
			k++
		}
	}
	return fmt.Sprintf("%d/%d", k, len(xs))
}
