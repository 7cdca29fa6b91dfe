package report

import (
	"strings"
	"testing"
)

func vals(xs ...float64) []Value {
	var out []Value
	for _, x := range xs {
		out = append(out, Value{V: x})
	}
	return out
}

var null = Value{Null: true}

func def(name string) MetricDef {
	for _, d := range Defs() {
		if d.Name == name {
			return d
		}
	}
	panic("no metric " + name)
}

func TestCell(t *testing.T) {
	tests := []struct {
		name   string
		metric string
		vals   []Value
		want   string
	}{
		// No valid run at all.
		{"empty", "failed", nil, "—"},
		// All runs agree: one value.
		{"equal", "failed", vals(0, 0, 0), "0"},
		// min / median / max; the median is a sample value.
		{"spread", "exit_after_ms", vals(2231.4, 2156.2, 2190), "2156 / 2190 / 2231"},
		// Even count: Empirical picks the lower middle value.
		{"even", "dropped_inflight", vals(20, 18, 19, 25), "18 / 19 / 25"},
		// Some runs null.
		{"some never", "exit_after_ms", append(vals(2156, 2231, 2190), null), "2156 / 2190 / 2231 (1 NEVER)"},
		// All runs null.
		{"all never", "exit_after_ms", []Value{null, null, null}, "NEVER 3/3"},
		// Small milliseconds keep a decimal.
		{"small ms", "p50_ms", vals(1.25), "1.2"},
		// Bools count the true runs.
		{"bool", "killed", vals(1, 0, 1), "2/3 true"},
		// Exit codes that agree.
		{"code equal", "exit_code", vals(137, 137, 137), "137"},
		// Exit codes that differ, with a NEVER.
		{"code mixed", "exit_code", append(vals(137, 0, 0), null), "0 2/4, 137 1/4, NEVER 1/4"},
		// Exit codes never set.
		{"code never", "exit_code", []Value{null, null}, "NEVER 2/2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := def(tt.metric)
			if got := Cell(d, SpreadOf(d, tt.vals)); got != tt.want {
				t.Errorf("Cell = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSpreadValidRunsOnly(t *testing.T) {
	v := Variant{Runs: []Run{
		{Valid: true, Metrics: Metrics{Failed: 1}},
		{Valid: false, Metrics: Metrics{Failed: 1000}},
		{Valid: true, Metrics: Metrics{Failed: 3}},
	}}
	s, _ := v.Spreads(Defs()).Get("failed")
	if s.N != 2 || *s.Max != 3 || *s.Min != 1 {
		t.Errorf("spread = %+v, want n=2 over 1..3", s)
	}
}

func TestRowsByClassOrder(t *testing.T) {
	ms := []*Metrics{
		{ByClass: map[string]int{"ok": 1, "http_503": 1, "weird": 1}},
		{ByClass: map[string]int{"reset": 1, "http_502": 1, "not_sent": 1}},
	}
	var got []string
	for _, d := range Rows(ms) {
		if k, ok := strings.CutPrefix(d.Name, ByClassPrefix); ok {
			got = append(got, k)
		}
	}
	want := "ok http_502 http_503 reset not_sent weird"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("by_class rows = %q, want %q", g, want)
	}
}
