package report

import (
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/shutdownlab/shutdownlab/internal/orderedjson"
)

// Spread summarises one metric over the valid runs of a variant.
type Spread struct {
	// Metric and Kind name the metric.
	Metric string `json:"-"`
	Kind   Kind   `json:"-"`
	// Min, Median and Max are over the non-null values (null when there
	// are none, and always null for bools). Median is
	// stat.Quantile(0.5, stat.Empirical, ...): always one of the runs'
	// values, the lower middle one for an even count.
	Min    *float64 `json:"min"`
	Median *float64 `json:"median"`
	Max    *float64 `json:"max"`
	// True counts the runs where a bool metric was true (bools only).
	True *int `json:"true,omitempty"`
	// Codes counts the runs per distinct exit code (codes only), in
	// ascending code order.
	Codes []CodeCount `json:"codes,omitempty"`
	// Nulls counts the runs where the value was null; N is the number of
	// valid runs considered (nulls included).
	Nulls int `json:"nulls"`
	N     int `json:"n"`
	// NullWhy is the reason shared by every null value, when they all
	// carry the same one (Value.Why); the table prints it instead of the
	// metric's null word.
	NullWhy string `json:"null_why,omitempty"`
}

// CodeCount is how many runs ended with one exit code.
type CodeCount struct {
	// Code is the exit code; Runs how many runs ended with it.
	Code int `json:"code"`
	Runs int `json:"runs"`
}

// SpreadOf computes the spread of one metric's values. Pure.
func SpreadOf(d MetricDef, vals []Value) Spread {
	s := Spread{Metric: d.Name, Kind: d.Kind, N: len(vals)}
	var xs []float64
	whys := map[string]bool{}
	for _, v := range vals {
		if v.Null {
			s.Nulls++
			whys[v.Why] = true
			continue
		}
		xs = append(xs, v.V)
	}
	if len(whys) == 1 {
		for w := range whys {
			s.NullWhy = w
		}
	}
	if d.Kind == KindBool {
		t := 0
		for _, x := range xs {
			if x != 0 {
				t++
			}
		}
		s.True = &t
		return s
	}
	if len(xs) == 0 {
		return s
	}
	slices.Sort(xs)
	s.Min = ptr(xs[0])
	s.Median = ptr(stat.Quantile(0.5, stat.Empirical, xs, nil))
	s.Max = ptr(xs[len(xs)-1])
	if d.Kind == KindCode {
		for _, x := range xs {
			c := int(x)
			if n := len(s.Codes); n > 0 && s.Codes[n-1].Code == c {
				s.Codes[n-1].Runs++
			} else {
				s.Codes = append(s.Codes, CodeCount{Code: c, Runs: 1})
			}
		}
	}
	return s
}

// ValidMetrics returns pointers to the metrics of the variant's valid runs.
func (v *Variant) ValidMetrics() []*Metrics {
	var out []*Metrics
	for i := range v.Runs {
		if v.Runs[i].Valid {
			out = append(out, &v.Runs[i].Metrics)
		}
	}
	return out
}

// Invalid returns the variant's runs that do not count (invalid or
// incomplete), in run order.
func (v *Variant) Invalid() []*Run {
	var out []*Run
	for i := range v.Runs {
		if !v.Runs[i].Valid {
			out = append(out, &v.Runs[i])
		}
	}
	return out
}

// Spreads returns the spread of each of rows (see Result.Rows) over the
// variant's valid runs only; invalid and incomplete runs never enter the
// numbers.
func (v *Variant) Spreads(rows []MetricDef) SpreadTable {
	return spreadsOver(v.ValidMetrics(), rows)
}

// Rows returns the metric rows shared by every variant of the result: Rows
// over the metrics of all runs, so that every variant reports the same
// by_class keys.
func (r *Result) Rows() []MetricDef {
	var ms []*Metrics
	for i := range r.Variants {
		for j := range r.Variants[i].Runs {
			ms = append(ms, &r.Variants[i].Runs[j].Metrics)
		}
	}
	return Rows(ms)
}

// spreadsOver computes one Spread per row.
func spreadsOver(ms []*Metrics, rows []MetricDef) SpreadTable {
	out := make(SpreadTable, 0, len(rows))
	vals := make([]Value, len(ms))
	for _, d := range rows {
		for i, m := range ms {
			vals[i] = d.Get(m)
		}
		out = append(out, SpreadOf(d, vals))
	}
	return out
}

// SpreadTable is an ordered list of spreads; it encodes as a JSON object
// keyed by metric name, in order.
type SpreadTable []Spread

// MarshalJSON encodes the table as an ordered JSON object.
func (t SpreadTable) MarshalJSON() ([]byte, error) {
	o := make(orderedjson.Object, len(t))
	for i, s := range t {
		o[i] = orderedjson.Field{Key: s.Metric, Value: s}
	}
	return o.MarshalJSON()
}

// Get returns the spread of the named metric, if present.
func (t SpreadTable) Get(name string) (Spread, bool) {
	for _, s := range t {
		if s.Metric == name {
			return s, true
		}
	}
	return Spread{}, false
}
