package report

import (
	"reflect"
	"strings"
	"testing"
)

// notMetrics are the JSON keys of Metrics that are not metrics, and why.
var notMetrics = map[string]string{
	"by_class":   "a map of counts; its rows are the by_class.KEY metrics (Rows, Lookup)",
	"notes":      "free text explaining accounting errors and oddities",
	"signal_ref": "a word naming the delivery window's upper bound, not a number",
}

// metricField is one JSON-tagged field of Metrics: of the core struct
// (part "") or of a capability's part.
type metricField struct {
	name  string // the JSON key
	part  Need   // the capability whose part holds it; "": the core
	index []int  // for reflect.Value.FieldByIndex
	typ   reflect.Type
}

// metricFields lists the JSON-tagged fields of Metrics and of every
// installed capability's part (Capability.Part), in the order
// summary.json has them.
func metricFields(t *testing.T) []metricField {
	t.Helper()
	var out []metricField
	walk := func(typ reflect.Type, part Need) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue // Metrics.parts: walked below
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				t.Errorf("field %s has no JSON name: every field of Metrics and its parts is named by its tag", f.Name)
				continue
			}
			out = append(out, metricField{name: name, part: part, index: []int{i}, typ: f.Type})
		}
	}
	walk(reflect.TypeFor[Metrics](), "")
	for _, c := range installed() {
		walk(reflect.TypeOf(c.Part).Elem(), c.Name)
	}
	return out
}

// field returns f's value in m (its part allocated by filled).
func (f metricField) field(m *Metrics) reflect.Value {
	if f.part == "" {
		return reflect.ValueOf(m).Elem().FieldByIndex(f.index)
	}
	return reflect.ValueOf(m.parts[f.part]).Elem().FieldByIndex(f.index)
}

// TestCatalogMatchesMetrics: every JSON key of Metrics is a catalog metric
// (or listed in notMetrics with a reason), and every catalog metric is a
// JSON key, so a field added without a definition (or a definition left
// behind by a rename) fails here. The parts are the tests' own
// (withParts); package capabilities' tests check the program's.
func TestCatalogMatchesMetrics(t *testing.T) {
	withParts(t)
	tags := map[string]bool{}
	for _, f := range metricFields(t) {
		tags[f.name] = true
		_, isDef := Lookup(f.name)
		_, skip := notMetrics[f.name]
		switch {
		case isDef && skip:
			t.Errorf("%s is both a catalog metric and listed in notMetrics", f.name)
		case !isDef && !skip:
			t.Errorf("Metrics field %q has no definition in report/catalog.go (or add it to notMetrics with a reason)", f.name)
		}
	}
	for name := range notMetrics {
		if !tags[name] {
			t.Errorf("notMetrics lists %q, which is no longer a field of Metrics", name)
		}
	}
	for name := range falseWhenFilled {
		if !tags[name] {
			t.Errorf("falseWhenFilled lists %q, which is no longer a field of Metrics", name)
		}
	}
	for _, d := range Defs() {
		if !tags[d.Name] {
			t.Errorf("catalog metric %q is no JSON key of Metrics", d.Name)
		}
	}
}

// falseWhenFilled are the bools filled leaves false, and why: when true
// they make other metrics null.
var falseWhenFilled = map[string]string{
	"phase_inconclusive": "true nulls dropped_inflight (inconclusive)",
}

// filled returns Metrics with every metric field set to a distinct
// non-zero value (field i: i+1.5 or i+1; bools true but those in
// falseWhenFilled), every capability's part allocated, and the value each
// field holds by name.
func filled(t *testing.T) (*Metrics, map[string]float64) {
	t.Helper()
	m := &Metrics{}
	for _, c := range installed() {
		m.SetPart(c.Name, reflect.New(reflect.TypeOf(c.Part).Elem()).Interface())
	}
	want := map[string]float64{}
	for i, f := range metricFields(t) {
		if _, skip := notMetrics[f.name]; skip {
			continue
		}
		fv := f.field(m)
		if fv.Kind() == reflect.Pointer {
			fv.Set(reflect.New(fv.Type().Elem()))
			fv = fv.Elem()
		}
		switch fv.Kind() {
		case reflect.Bool:
			_, off := falseWhenFilled[f.name]
			fv.SetBool(!off)
			want[f.name] = BoolValue(!off).V
		case reflect.Int:
			fv.SetInt(int64(i + 1))
			want[f.name] = float64(i + 1)
		case reflect.Float64:
			fv.SetFloat(float64(i+1) + 0.5)
			want[f.name] = float64(i+1) + 0.5
		default:
			t.Fatalf("field %s: kind %s; teach filled about it", f.name, fv.Kind())
		}
	}
	return m, want
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name    string
		known   bool
		kind    Kind
		compare Comparison
	}{
		{"failed", true, KindCount, CompareLoss},
		{"p99_ms", true, KindMs, CompareLatency},
		{"exit_code", true, KindCode, CompareCodes},
		{"requests", true, KindCount, CompareNone},
		{"signal_handled", true, KindBool, CompareNone},
		// by_class: a failure class is a loss; ok and not_sent are not.
		{"by_class.http_502", true, KindCount, CompareLoss},
		{"by_class.http_000", true, KindCount, CompareLoss},
		{"by_class.refused", true, KindCount, CompareLoss},
		{"by_class.unknown", true, KindCount, CompareLoss},
		{"by_class.ok", true, KindCount, CompareNone},
		{"by_class.not_sent", true, KindCount, CompareNone},
		// names a report never produces
		{"by_class.http_error", false, "", ""},
		{"by_class.http_5O2", false, "", ""},
		{"by_class.http_5021", false, "", ""},
		{"by_class.resets", false, "", ""},
		{"by_class.", false, "", ""},
		{"by_class", false, "", ""},
		{"notes", false, "", ""},
		{"p99", false, "", ""},
	}
	for _, tt := range tests {
		d, ok := Lookup(tt.name)
		if ok != tt.known || d.Kind != tt.kind || d.Compare != tt.compare {
			t.Errorf("Lookup(%q) = %v kind %q compare %q, want %v %q %q", tt.name, ok, d.Kind, d.Compare, tt.known, tt.kind, tt.compare)
		}
		if ok && d.Name != tt.name {
			t.Errorf("Lookup(%q).Name = %q", tt.name, d.Name)
		}
	}
}

// TestByClassRowsCompare: the by_class rows Rows inserts carry the same
// comparison as Lookup gives.
func TestByClassRowsCompare(t *testing.T) {
	m := &Metrics{ByClass: map[string]int{"ok": 3, "http_503": 1, "not_sent": 1, "weird": 1}}
	n := 0
	for _, d := range Rows([]*Metrics{m}) {
		key, ok := strings.CutPrefix(d.Name, ByClassPrefix)
		if !ok {
			continue
		}
		n++
		want := CompareLoss
		if key == "ok" || key == "not_sent" {
			want = CompareNone
		}
		if d.Compare != want {
			t.Errorf("%s compares as %q, want %q", d.Name, d.Compare, want)
		}
	}
	if n != 4 {
		t.Errorf("got %d by_class rows, want 4", n)
	}
}
