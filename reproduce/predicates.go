package reproduce

import (
	"fmt"
	"slices"

	"github.com/shutdownlab/shutdownlab/report"
)

// Predicates over one run's value, and their application over the runs.
// A null value (a metric the run does not have, e.g. no exit within the
// window) satisfies none of the exported predicates but Not's.

func never(x report.Value) bool { return x.Null }

// IsTrue holds of a flag metric that is set.
func IsTrue(x report.Value) bool { return !x.Null && x.V != 0 }

// IsFalse holds of a flag metric that is present and unset.
func IsFalse(x report.Value) bool { return !x.Null && x.V == 0 }

// AtLeast holds of a value ≥ n.
func AtLeast(n float64) func(report.Value) bool {
	return func(x report.Value) bool { return !x.Null && x.V >= n }
}

// Below holds of a value < n.
func Below(n float64) func(report.Value) bool {
	return func(x report.Value) bool { return !x.Null && x.V < n }
}

// NotBelow holds where Below(n) does not: a value ≥ n, or null.
func NotBelow(n float64) func(report.Value) bool {
	return func(x report.Value) bool { return !Below(n)(x) }
}

// Between holds of a value in [lo, hi).
func Between(lo, hi float64) func(report.Value) bool {
	return func(x report.Value) bool { return !x.Null && x.V >= lo && x.V < hi }
}

// Equals holds of a value equal to n.
func Equals(n float64) func(report.Value) bool {
	return func(x report.Value) bool { return !x.Null && x.V == n }
}

// Not holds where p does not (null values included).
func Not(p func(report.Value) bool) func(report.Value) bool {
	return func(x report.Value) bool { return !p(x) }
}

// Every reports whether p holds in every run (false without runs).
func Every(xs []report.Value, p func(report.Value) bool) bool {
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

// Count returns how many runs p holds in, as "k/n", for a check's text.
func Count(xs []report.Value, p func(report.Value) bool) string {
	k := 0
	for _, x := range xs {
		if p(x) {
			k++
		}
	}
	return fmt.Sprintf("%d/%d", k, len(xs))
}

// Median is the lower-middle non-null value (as report's spreads, of a
// count: a fraction is not kept), -1 when every value is null.
func Median(xs []report.Value) float64 {
	d := report.MetricDef{Name: "x", Kind: report.KindCount}
	s := report.SpreadOf(d, xs)
	if s.Median == nil {
		return -1
	}
	return *s.Median
}

// MsRange formats lo–hi milliseconds for a check's text ("4000–5000 ms"),
// "≥ lo ms" when hi is 1e12 or more (no upper bound).
func MsRange(lo, hi float64) string {
	if hi >= 1e12 {
		return "≥ " + report.FormatNumber(report.KindMs, lo) + " ms"
	}
	return report.FormatNumber(report.KindMs, lo) + "–" + report.FormatNumber(report.KindMs, hi) + " ms"
}
