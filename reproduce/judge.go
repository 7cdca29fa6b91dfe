package reproduce

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shutdownlab/shutdownlab/report"
)

// The judging API the rules are written in, P1–P12's here and the
// capabilities' own (their Claim.RuleFunc). A rule reads its cells first
// (Judge.Vals, so a verdict shows every number even when a check fails),
// then checks only when every input was present (Judge.OK, Judge.Check),
// and returns Judge.Verdict. The predicates below say what holds of one
// run's value; Every and Count apply them over the runs.

// Judge collects the cells and checks of one rule over one result. The
// first missing input (variant, valid run, metric) makes the verdict
// not_run; failed checks make it differs.
type Judge struct {
	res    *report.Result
	cells  []Cell
	fails  []string
	notRun string
}

// NewJudge returns a judge of res; a nil res is not_run.
func NewJudge(res *report.Result) *Judge {
	j := &Judge{res: res}
	if res == nil {
		j.notRun = "no result"
	}
	return j
}

// OK reports whether every input so far was present.
func (j *Judge) OK() bool { return j.notRun == "" }

// Missing records the first reason the rule cannot be judged (the
// verdict is then not_run, with that reason).
func (j *Judge) Missing(format string, args ...any) {
	if j.notRun == "" {
		j.notRun = fmt.Sprintf(format, args...)
	}
}

// variant returns the variant matching label (see MatchLabel), recording
// not_run when there is none or it has no valid run.
func (j *Judge) variant(label string) *report.Variant {
	if !j.OK() {
		return nil
	}
	for i := range j.res.Variants {
		if MatchLabel(j.res.Variants[i].Label, label) {
			v := &j.res.Variants[i]
			if len(v.ValidMetrics()) == 0 {
				j.Missing("variant %s of %s has no valid run", label, j.res.Scenario)
				return nil
			}
			return v
		}
	}
	j.Missing("variant %s not in the %s result", label, j.res.Scenario)
	return nil
}

// Vals returns a metric's values over the valid runs of the variant
// matching label (MatchLabel) and records its cell; nil (and not_run)
// when the variant or the metric is missing.
func (j *Judge) Vals(label, metric string) []report.Value {
	v := j.variant(label)
	if v == nil {
		return nil
	}
	return j.valsOf(v, metric)
}

// valsOf is Vals for a variant already found.
func (j *Judge) valsOf(v *report.Variant, metric string) []report.Value {
	vals, ok := variantValues(v, metric)
	if !ok {
		j.Missing("metric %s is not computed by this build", metric)
		return nil
	}
	d := metricDef(metric)
	j.cells = append(j.cells, Cell{Variant: v.Label, Metric: metric, Text: report.Cell(d, report.SpreadOf(d, vals))})
	return vals
}

// Check records a failed check, its text formatted from format and args,
// when cond is false.
func (j *Judge) Check(cond bool, format string, args ...any) {
	if !cond {
		j.fails = append(j.fails, fmt.Sprintf(format, args...))
	}
}

// Verdict returns the verdict reached: not_run on a missing input,
// differs on a failed check, else reproduced. Its Rule is left to
// Claim.Judge, which sets the claim's.
func (j *Judge) Verdict() Verdict {
	v := Verdict{Cells: j.cells, Measured: measuredText(j.cells)}
	switch {
	case !j.OK():
		v.Status, v.Why = NotRun, j.notRun
	case len(j.fails) > 0:
		v.Status, v.Why = Differs, strings.Join(j.fails, "; ")
	default:
		v.Status = Reproduced
	}
	return v
}

// MatchLabel reports whether a variant label has every key=value part of
// want ("mode=close" matches "runtime=node,mode=close"); want "" matches
// everything. A claim's Variants are matched so.
func MatchLabel(label, want string) bool {
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
