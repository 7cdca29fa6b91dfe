package report

import (
	"fmt"
	"strings"

	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// FormatNumber prints one number of the given kind for a person: whole
// numbers for counts, seconds and codes; milliseconds rounded to 1 ms at
// 100 ms and above, to 0.1 ms below; ratios to two decimals.
func FormatNumber(k Kind, x float64) string {
	switch k {
	case KindMs:
		return shutdown.FormatMs(x)
	case KindRatio:
		return fmt.Sprintf("%.2f", x)
	default:
		return fmt.Sprintf("%.0f", x)
	}
}

// Cell prints a spread for a table cell:
//
//   - no valid run: "—"
//   - bool: "k/n true"
//   - exit code: the code when every run agrees ("137"), else each code with
//     its share ("0 2/3, 137 1/3"); null runs as "NEVER k/n"
//   - other numbers: "min / median / max", or one value when min == max;
//     null runs appended as "(k NEVER)", or "NEVER n/n" when all are null.
func Cell(d MetricDef, s Spread) string {
	if s.N == 0 {
		return "—"
	}
	null := d.Null
	if s.NullWhy != "" {
		null = s.NullWhy
	}
	if null == "" {
		null = "null"
	}
	if s.Nulls == s.N {
		return fmt.Sprintf("%s %d/%d", null, s.Nulls, s.N)
	}
	if d.Kind == KindBool {
		t := 0
		if s.True != nil {
			t = *s.True
		}
		out := fmt.Sprintf("%d/%d true", t, s.N-s.Nulls)
		if s.Nulls > 0 {
			out += fmt.Sprintf(" (%d %s)", s.Nulls, null)
		}
		return out
	}
	if d.Kind == KindCode {
		if len(s.Codes) == 1 && s.Nulls == 0 {
			return fmt.Sprint(s.Codes[0].Code)
		}
		var parts []string
		for _, c := range s.Codes {
			parts = append(parts, fmt.Sprintf("%d %d/%d", c.Code, c.Runs, s.N))
		}
		if s.Nulls > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d", null, s.Nulls, s.N))
		}
		return strings.Join(parts, ", ")
	}
	var out string
	lo, mid, hi := FormatNumber(d.Kind, *s.Min), FormatNumber(d.Kind, *s.Median), FormatNumber(d.Kind, *s.Max)
	if lo == hi {
		out = lo
	} else {
		out = lo + " / " + mid + " / " + hi
	}
	if s.Nulls > 0 {
		out += fmt.Sprintf(" (%d %s)", s.Nulls, null)
	}
	return out
}

// NoLifecycleLog is the null word of the metrics that read the app's own
// lifecycle log, for a run whose replica logged none.
const NoLifecycleLog = "n/a (no lifecycle log)"

// FromLifecycleLog returns d read from the app's lifecycle log: null with
// NoLifecycleLog in a run that has none, before d's own reader is asked
// (a capability's row read from the log: PartDef(...).FromLifecycleLog()).
func (d MetricDef) FromLifecycleLog() MetricDef {
	d.Read = Lifecycle(d.Read)
	return d
}

// Lifecycle wraps the reader of a metric read from the app's lifecycle
// log: null with NoLifecycleLog when the run has none.
func Lifecycle(get func(*Metrics) Value) func(*Metrics) Value {
	return func(m *Metrics) Value {
		if !m.LifecycleLog {
			return Value{Null: true, Why: NoLifecycleLog}
		}
		return get(m)
	}
}

// BoolPtrValue is *p as a metric value, null for a nil p (IntValue).
func BoolPtrValue(p *bool) Value {
	if p == nil {
		return Value{Null: true}
	}
	return BoolValue(*p)
}

// ByClassPrefix prefixes the flattened names of the by_class counts
// ("by_class.ok", "by_class.http_502", ...).
const ByClassPrefix = "by_class."

// IntValue, FloatValue and BoolValue are a count, a number and a bool
// (1 or 0) as a metric value; the Ptr forms are null for a nil pointer.
// A capability's rows build their values with them.
func IntValue(n int) Value { return Value{V: float64(n)} }

// FloatValue is f as a metric value (IntValue).
func FloatValue(f float64) Value { return Value{V: f} }

// BoolValue is b as a metric value, 1 or 0 (IntValue).
func BoolValue(b bool) Value {
	if b {
		return Value{V: 1}
	}
	return Value{}
}

// IntPtrValue is *p as a metric value, null for a nil p (IntValue).
func IntPtrValue(p *int) Value {
	if p == nil {
		return Value{Null: true}
	}
	return IntValue(*p)
}

// FloatPtrValue is *p as a metric value, null for a nil p (IntValue).
func FloatPtrValue(p *float64) Value {
	if p == nil {
		return Value{Null: true}
	}
	return FloatValue(*p)
}
