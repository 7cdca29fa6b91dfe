package deregistration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// deregRun is a run of a deregistering roll: signal at 1e9 ns, the
// deregistration sent and acked at the given ms after it, PRESTOP_MS pre,
// failed failures (all 502s) and valid as given.
func deregRun(delay float64, pre string, failed int, valid bool) report.Run {
	env := map[string]string{}
	if pre != "" {
		env[PreStopEnv] = pre
	}
	sent := int64(1e9)
	return report.Run{Valid: valid, Metrics: report.Metrics{Failed: failed, ByClass: map[string]int{"ok": 100, "http_502": failed}},
		Meta: record.Meta{Action: &record.Action{Replica: 0, SentNs: sent, Deregister: &record.Deregistration{
			AfterMs: delay, SentNs: sent + int64(delay*1e6) + 1e6, AckedNs: sent + int64(delay*1e6) + 100e6}},
			Replicas: []record.Replica{{Name: "replica-0", Env: env}, {Name: "replica-1", Env: env}}}}
}

func TestDeregRowsAndSmallestPreStop(t *testing.T) {
	variant := func(delay float64, pre string, runs ...report.Run) report.Variant {
		return report.Variant{Label: fmt.Sprintf("d=%v,p=%s", delay, pre), Runs: runs}
	}
	tests := []struct {
		name       string
		variants   []report.Variant
		wantRows   int
		wantDelays []float64
		wantPre    []string
		wantLines  []string // "pre: x→y ..."
	}{
		{"no deregistration: no section", []report.Variant{{Label: "x", Runs: []report.Run{{Valid: true, Meta: record.Meta{Action: &record.Action{}}}}}}, 0, nil, nil, nil},
		{"sweep", []report.Variant{
			variant(0, "0", deregRun(0, "0", 40, true)),
			variant(0, "1000", deregRun(0, "1000", 0, true)),
			variant(1500, "0", deregRun(1500, "0", 60, true)),
			variant(1500, "1000", deregRun(1500, "1000", 50, true)),
			variant(1500, "2500", deregRun(1500, "2500", 0, true), deregRun(1500, "2500", 0, true)),
		}, 5, []float64{0, 1500}, []string{"1000", "2500"}, []string{"0: 0→40 1500→60", "1000: 0→0 1500→50", "2500: 1500→0"}},
		{"one run of two failed: not zero", []report.Variant{
			variant(500, "1000", deregRun(500, "1000", 0, true), deregRun(500, "1000", 3, true)),
		}, 1, []float64{500}, []string{""}, []string{"1000: 500→1.5"}},
		{"invalid runs do not count", []report.Variant{
			variant(500, "1000", deregRun(500, "1000", 9, false), deregRun(500, "1000", 0, true)),
			variant(500, "0", deregRun(500, "0", 0, false)),
		}, 2, []float64{500}, []string{"1000"}, []string{"1000: 500→0"}},
		{"pre-stop unset is not a number", []report.Variant{variant(0, "", deregRun(0, "", 0, true))}, 1, []float64{0}, []string{""}, []string{": 0→0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := Rows(&report.Result{Variants: tt.variants})
			if len(rows) != tt.wantRows {
				t.Fatalf("%d rows, want %d", len(rows), tt.wantRows)
			}
			d, p := SmallestZeroPreStop(rows)
			if !slices.Equal(d, tt.wantDelays) || !slices.Equal(p, tt.wantPre) {
				t.Errorf("smallest zero pre-stop %v %q, want %v %q", d, p, tt.wantDelays, tt.wantPre)
			}
			var lines []string
			for _, l := range deregLines(rows) {
				var pts []string
				for _, pt := range l.Points {
					pts = append(pts, fmt.Sprintf("%v→%v", pt.X, pt.Y))
				}
				lines = append(lines, l.PreStop+": "+strings.Join(pts, " "))
			}
			if !slices.Equal(lines, tt.wantLines) {
				t.Errorf("lines %q, want %q", lines, tt.wantLines)
			}
		})
	}
}

// TestDeregSectionAndTimeline: report.md shows the deregistration in the
// section and as two timeline columns (core's), only for a deregistering
// result.
func TestDeregSectionAndTimeline(t *testing.T) {
	res := &report.Result{Variants: []report.Variant{{Label: "d=1500,p=0", Runs: []report.Run{deregRun(1500, "0", 7, true)}}}}
	var b strings.Builder
	if err := report.WriteMarkdown(&b, res, nil, []report.Section{&Section{plot: PlotFile}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"## Deregistration race",
		"| d=1500,p=0 | 1500 | 0 | 1 | 7 | http_502 7 | 1501 | 1600 |",
		"| 1500 | none |",
		"![failures vs deregistration delay](deregistration.png)",
		"deregister sent | deregister acked | exit code |",
		"| +1501 | +1600 | NEVER |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	b.Reset()
	plain := &report.Result{Variants: []report.Variant{{Label: "x", Runs: []report.Run{{Valid: true, Meta: record.Meta{Action: &record.Action{SentNs: 1}}}}}}}
	if err := report.WriteMarkdown(&b, plain, nil, []report.Section{&Section{}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "eregist") {
		t.Errorf("a result without deregistration mentions it:\n%s", b.String())
	}
}

// termRun is a run of a terminate action: deleted at 1e9 ns, its sleep
// hook (sleepMs; <0: an exec hook) ending then, the signal after it, the
// deregistration delay ms after the deletion, PRESTOP_MS "0".
func termRun(delay, sleepMs float64, failed int) report.Run {
	r := deregRun(delay, "0", failed, true)
	a := r.Meta.Action
	deleted := int64(1e9)
	hook := &record.HookRun{Kind: "sleep", SleepMs: sleepMs}
	if sleepMs < 0 {
		hook = &record.HookRun{Kind: "exec"}
		sleepMs = 0
	}
	a.Kind, a.SentNs = record.ActionTerminate, deleted+int64(sleepMs*1e6)
	a.SetPart(&record.Termination{DeletedNs: deleted, Hook: hook})
	return r
}

// TestTerminationRows: a termination's pre-stop is its hook's sleep plus
// PRESTOP_MS (blank for an exec hook, whose length is the app's), its
// deregistration times count from the deletion, and the section and plot
// say so instead of PRESTOP_MS — so the smallest safe pre-stop is the
// hook's, not the target's unchanged PRESTOP_MS.
func TestTerminationRows(t *testing.T) {
	res := &report.Result{Scenario: "k", Variants: []report.Variant{
		{Label: "sleep=0s,d=1s", Runs: []report.Run{termRun(1000, 0, 67)}},
		{Label: "sleep=3s,d=1s", Runs: []report.Run{termRun(1000, 3000, 0)}},
		{Label: "exec,d=1s", Runs: []report.Run{termRun(1000, -1, 0)}},
	}}
	rows := Rows(res)
	if got := []string{rows[0].PreStop, rows[1].PreStop, rows[2].PreStop}; !slices.Equal(got, []string{"0", "3000", ""}) || !rows[0].Termination {
		t.Fatalf("pre-stops %q termination %v", got, rows[0].Termination)
	}
	if rows[1].SentMs[0] != 1001 {
		t.Errorf("sent %v ms, want 1001 after the deletion (not after the signal 3 s later)", rows[1].SentMs)
	}
	if _, pre := SmallestZeroPreStop(rows); !slices.Equal(pre, []string{"3000"}) {
		t.Errorf("smallest zero-failure pre-stop %q, want 3000", pre)
	}
	var b strings.Builder
	(&Section{}).Markdown(&b, res)
	md := b.String()
	for _, want := range []string{"after the pod's deletion", "| variant | deregister_after ms | pre-stop ms |", "smallest zero-failure pre-stop ms |", "| 1000 | 3000 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("section lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "PRESTOP_MS |") {
		t.Errorf("a termination's section names PRESTOP_MS as its pre-stop:\n%s", md)
	}
}
