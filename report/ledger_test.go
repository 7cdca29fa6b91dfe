package report

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

func post(id string, c record.Class) record.Request {
	return record.Request{Type: "req", ID: id, Method: "POST", Path: "/write?ms=300", Class: c}
}

// TestReconcile joins synthetic write records with synthetic ledgers.
func TestReconcile(t *testing.T) {
	get := record.Request{Type: "req", ID: "g1", Method: "GET", Path: "/slow", Class: record.ClassOK}
	tests := []struct {
		name    string
		ledgers [][]string
		reqs    []record.Request
		want    *Writes
	}{
		// no writes, no rows: nothing to reconcile (null metrics)
		{"no writes", nil, []record.Request{get}, nil},
		// every class once: acked, ghost (502 but written), clean (reset, not
		// written), lost (2xx, not written), unsent, unknown-recorded
		{"every class", [][]string{{"a", "g"}, {"u"}},
			[]record.Request{post("a", record.ClassOK), post("g", record.ClassHTTPError), post("c", record.ClassReset),
				post("l", record.ClassOK), post("n", record.ClassNotSent), post("u", record.ClassNotSent), get},
			&Writes{Posts: 6, Acked: 1, Ghost: 1, Clean: 1, Lost: 1, Unsent: 1, Unknown: 1, UnknownRecorded: 1, Rows: 3}},
		// a row with no record at all is unknown; a row in two ledgers is one
		// row and one duplicate (a proxy retry that reached both replicas)
		{"orphan and duplicate", [][]string{{"a", "x"}, {"a"}},
			[]record.Request{post("a", record.ClassOK)},
			&Writes{Posts: 1, Acked: 1, Unknown: 1, Duplicates: 1, Rows: 2}},
		// eof and timeout after the write count as ghost; blank ledger lines are ignored
		{"eof and timeout ghosts", [][]string{{"e", "", "t"}},
			[]record.Request{post("e", record.ClassEOF), post("t", record.ClassTimeout), post("r", record.ClassRefused)},
			&Writes{Posts: 3, Ghost: 2, Clean: 1, Rows: 2}},
		// a POST to another path is not a write
		{"other paths", [][]string{}, []record.Request{{ID: "p", Method: "POST", Path: "/writer", Class: record.ClassOK}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var meta record.Meta
			for _, l := range tt.ledgers {
				meta.Replicas = append(meta.Replicas, record.Replica{Ledger: l})
			}
			got := Reconcile(meta, tt.reqs)
			switch {
			case got == nil && tt.want == nil:
				return
			case got == nil || tt.want == nil:
				t.Fatalf("got %+v, want %+v", got, tt.want)
			case *got != *tt.want:
				t.Fatalf("got %+v, want %+v", *got, *tt.want)
			}
			if bad := got.check(); len(bad) > 0 {
				t.Errorf("counts do not add up: %v", bad)
			}
		})
	}
}

// TestLostWriteFlagged: a 2xx whose id no ledger holds is a lost write,
// counted and flagged in the notes; the counts still add up.
func TestLostWriteFlagged(t *testing.T) {
	meta := record.Meta{Replicas: []record.Replica{{Ledger: []string{"a"}}, {Ledger: []string{"b"}}}}
	reqs := []record.Request{post("a", record.ClassOK), post("b", record.ClassOK), post("lost", record.ClassOK)}
	m := Compute(meta, reqs)
	if m.LostWrites == nil || *m.LostWrites != 1 || *m.AckedWrites != 2 || *m.Writes != 3 {
		t.Fatalf("writes=%v acked=%v lost=%v, want 3, 2, 1", m.Writes, m.AckedWrites, m.LostWrites)
	}
	flagged := false
	for _, n := range m.Notes {
		flagged = flagged || strings.Contains(n, "LOST WRITES: 1")
	}
	if !flagged {
		t.Errorf("notes %q: want a LOST WRITES note", m.Notes)
	}
	if v, _ := m.Value("lost_writes"); v.Null || v.V != 1 {
		t.Errorf("lost_writes value %+v", v)
	}
}

// TestWriteRowsOptional: reports of runs without writes keep their shape;
// runs with writes get the rows.
func TestWriteRowsOptional(t *testing.T) {
	plain := Compute(record.Meta{}, []record.Request{{ID: "g", Method: "GET", Path: "/slow", Class: record.ClassOK}})
	writes := Compute(record.Meta{Replicas: []record.Replica{{Ledger: []string{"a"}}}}, []record.Request{post("a", record.ClassOK)})
	has := func(rows []MetricDef, name string) bool {
		for _, d := range rows {
			if d.Name == name {
				return true
			}
		}
		return false
	}
	if has(Rows([]*Metrics{&plain}), "ghost_writes") {
		t.Error("ghost_writes row without writes")
	}
	if !has(Rows([]*Metrics{&plain, &writes}), "ghost_writes") {
		t.Error("no ghost_writes row with writes")
	}
}

// TestApplyBaseline: p99_vs_baseline divides by the baseline variant's
// median p99 over its valid runs.
func TestApplyBaseline(t *testing.T) {
	run := func(p99 float64, baseline, valid bool) Run {
		return Run{Meta: record.Meta{Baseline: baseline}, Metrics: Metrics{P99Ms: ptr(p99)}, Valid: valid}
	}
	res := &Result{Variants: []Variant{
		{Label: "mode=none", Runs: []Run{run(600, false, true)}},
		{Label: "baseline", Runs: []Run{run(300, true, true), run(400, true, true), run(9999, true, false), run(500, true, true)}},
	}}
	applyBaseline(res)
	m := res.Variants[0].Runs[0].Metrics
	if m.BaselineP99Ms == nil || *m.BaselineP99Ms != 400 || m.P99VsBaseline == nil || *m.P99VsBaseline != 1.5 {
		t.Fatalf("baseline %v ratio %v, want 400 and 1.5", m.BaselineP99Ms, m.P99VsBaseline)
	}
	if res.Variants[1].Runs[0].Metrics.P99VsBaseline != nil {
		t.Error("the baseline variant itself got a ratio")
	}
}
