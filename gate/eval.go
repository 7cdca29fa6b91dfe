package gate

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/report"
)

// Reference gives the reference variant's value of a metric (the NAME of
// reference.NAME); ok is false for an unknown name. A nil Reference means
// there is none.
type Reference func(name string) (v report.Value, ok bool)

// MetricsReference is the reference of one run's metrics.
func MetricsReference(m *report.Metrics) Reference {
	if m == nil {
		return nil
	}
	return m.Value
}

// MedianReference is the reference of a set of runs (normally a
// variant's valid runs): reference.X is the median of X over the runs' non-null
// values, as report's spreads compute it (stat.Empirical: one run's actual
// value, the lower middle one for an even count; a bool is 0 or 1). It is
// null when every run's X is null, or when there are no runs.
func MedianReference(runs []*report.Metrics) Reference {
	return func(name string) (report.Value, bool) {
		d, ok := report.Lookup(name)
		if !ok {
			return report.Value{}, false
		}
		vals := make([]report.Value, len(runs))
		for i, m := range runs {
			vals[i], _ = m.Value(name)
		}
		d.Kind = report.KindCount // every kind gets a median
		s := report.SpreadOf(d, vals)
		if s.Median == nil {
			return report.Value{Null: true}, true
		}
		return report.Value{V: *s.Median}, true
	}
}

// Measured is the value of one referenced metric in one run.
type Measured struct {
	// Name is the reference as written ("failed", "reference.p99_ms").
	Name  string
	Value report.Value
	// Kind and NullWord (the catalog's word for null: "NEVER", "n/a", ...;
	// "null" when the catalog has none) format the value.
	Kind     report.Kind
	NullWord string
}

// String formats the value as "failed = 3", "killed = true",
// "exit_after_ms = NEVER"; numbers are rounded to 3 decimals.
func (m Measured) String() string { return m.Name + " = " + m.formatValue() }

func (m Measured) formatValue() string {
	switch {
	case m.Value.Null:
		return m.NullWord
	case m.Kind == report.KindBool:
		return strconv.FormatBool(m.Value.V != 0)
	}
	return strconv.FormatFloat(math.Round(m.Value.V*1000)/1000, 'f', -1, 64)
}

// Outcome is the result of one expectation on one run.
type Outcome struct {
	// Pass is true when the expression held.
	Pass bool
	// Values are the referenced metrics in source order, without
	// duplicates.
	Values []Measured
	// Notes explain a false comparison caused by null ("exit_after_ms is
	// null (NEVER)") and divisions by zero.
	Notes []string
}

// Measured joins the values: "failed = 3, dropped_inflight = 0".
func (o Outcome) Measured() string {
	parts := make([]string, len(o.Values))
	for i, v := range o.Values {
		parts[i] = v.String()
	}
	return strings.Join(parts, ", ")
}

// ErrNoReference is returned by Eval for an expectation that refers to
// reference.NAME when no reference was given.
var ErrNoReference = errors.New("expectation uses reference.NAME but no reference variant was given")

// Eval judges the expectation on one run's metrics. ref supplies
// reference.NAME values and may be nil when the expectation uses none.
//
// Null rules: arithmetic with null gives null; "x == null" is true iff x is
// null and "x != null" iff it is not (x may be an arithmetic expression);
// every other comparison with a null side is false, "!=" included
// ("exit_code != 137" is false for a replica that never exited), and a
// note names the null metric. Division by zero gives
// null, with a note.
func (e *Expectation) Eval(m *report.Metrics, ref Reference) (Outcome, error) {
	if m == nil {
		return Outcome{}, errors.New("no metrics")
	}
	if e.UsesReference() && ref == nil {
		return Outcome{}, ErrNoReference
	}
	ev := &evaluator{e: e, vals: map[string]Measured{}}
	var out Outcome
	for _, r := range e.refs {
		if _, done := ev.vals[r.text]; done {
			continue
		}
		var v report.Value
		var ok bool
		if r.reference {
			v, ok = ref(r.name)
		} else {
			v, ok = m.Value(r.name)
		}
		d, known := report.Lookup(r.name)
		if !ok || !known {
			return Outcome{}, errAt(e.Source, r.p, "unknown metric %q", r.text)
		}
		mv := Measured{Name: r.text, Value: v, Kind: d.Kind, NullWord: d.Null}
		if mv.NullWord == "" {
			mv.NullWord = "null"
		}
		ev.vals[r.text] = mv
		out.Values = append(out.Values, mv)
	}
	out.Pass = ev.truth(e.root)
	out.Notes = ev.notes
	return out, nil
}

// evaluator walks the tree for one run, collecting notes.
type evaluator struct {
	e     *Expectation
	vals  map[string]Measured
	notes []string
}

func (ev *evaluator) note(s string) {
	for _, n := range ev.notes {
		if n == s {
			return
		}
	}
	ev.notes = append(ev.notes, s)
}

// truth evaluates a comparison or conjunction.
func (ev *evaluator) truth(n node) bool {
	switch n := n.(type) {
	case *logic:
		// Both sides are evaluated so that every null gets its note.
		x, y := ev.truth(n.x), ev.truth(n.y)
		if n.op == "&&" {
			return x && y
		}
		return x || y
	case *cmp:
		x, y := ev.num(n.x), ev.num(n.y)
		_, xLit := n.x.(*nullLit)
		_, yLit := n.y.(*nullLit)
		if xLit || yLit {
			// A null test: "x == null", "x != null" (only == and != parse).
			isNull := x.Null && y.Null
			return isNull == (n.op == "==")
		}
		if x.Null || y.Null {
			ev.noteNulls(n.x)
			ev.noteNulls(n.y)
			return false
		}
		switch n.op {
		case "==":
			return x.V == y.V
		case "!=":
			return x.V != y.V
		case "<":
			return x.V < y.V
		case "<=":
			return x.V <= y.V
		case ">":
			return x.V > y.V
		case ">=":
			return x.V >= y.V
		}
	}
	panic(fmt.Sprintf("gate: truth of %T", n))
}

// noteNulls notes every null metric under n.
func (ev *evaluator) noteNulls(n node) {
	switch n := n.(type) {
	case *ref:
		if m := ev.vals[n.text]; m.Value.Null {
			ev.note(fmt.Sprintf("%s is null (%s)", n.text, m.NullWord))
		}
	case *neg:
		ev.noteNulls(n.x)
	case *arith:
		ev.noteNulls(n.x)
		ev.noteNulls(n.y)
	}
}

// num evaluates an arithmetic expression.
func (ev *evaluator) num(n node) report.Value {
	switch n := n.(type) {
	case *numLit:
		return report.Value{V: n.v}
	case *nullLit:
		return report.Value{Null: true}
	case *ref:
		return ev.vals[n.text].Value
	case *neg:
		x := ev.num(n.x)
		x.V = -x.V
		return x
	case *arith:
		x, y := ev.num(n.x), ev.num(n.y)
		if x.Null || y.Null {
			return report.Value{Null: true}
		}
		switch n.op {
		case "+":
			return report.Value{V: x.V + y.V}
		case "-":
			return report.Value{V: x.V - y.V}
		case "*":
			return report.Value{V: x.V * y.V}
		case "/":
			if y.V == 0 {
				ev.note(fmt.Sprintf("division by zero at col %d gives null", errAt(ev.e.Source, n.p, "").Col))
				return report.Value{Null: true}
			}
			return report.Value{V: x.V / y.V}
		}
	}
	panic(fmt.Sprintf("gate: number of %T", n))
}
