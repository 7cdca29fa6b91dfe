package runner

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestSplitAgain: the again keeps the first kill event of its signal at
// or after its send; everything else stays the action's.
func TestSplitAgain(t *testing.T) {
	k := func(ns int64, sig int) record.Kill { return record.Kill{TimeNs: ns, Signal: sig} }
	tests := []struct {
		name     string
		again    *record.Step
		kills    []record.Kill
		wantOwn  []int64
		wantMine []int64
	}{
		{"none", nil, []record.Kill{k(10, 15)}, []int64{10}, nil},
		{"never sent", &record.Step{Signal: "SIGTERM"}, []record.Kill{k(10, 15)}, []int64{10}, nil},
		{"TERM, TERM again", &record.Step{Signal: "SIGTERM", SentNs: 50}, []record.Kill{k(10, 15), k(55, 15)}, []int64{10}, []int64{55}},
		{"stop's SIGKILL after the again stays the action's", &record.Step{Signal: "SIGTERM", SentNs: 50},
			[]record.Kill{k(10, 15), k(55, 15), k(90, 9)}, []int64{10, 90}, []int64{55}},
		{"only the first", &record.Step{Signal: "SIGINT", SentNs: 50}, []record.Kill{k(10, 2), k(55, 2), k(60, 2)}, []int64{10, 60}, []int64{55}},
		{"unknown number counts", &record.Step{Signal: "SIGTERM", SentNs: 50}, []record.Kill{k(10, 15), k(51, 0)}, []int64{10}, []int64{51}},
		{"replica gone: no event", &record.Step{Signal: "SIGTERM", SentNs: 50, Error: "not running"}, []record.Kill{k(10, 15)}, []int64{10}, nil},
	}
	times := func(ks []record.Kill) []int64 {
		var out []int64
		for _, k := range ks {
			out = append(out, k.TimeNs)
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			own := splitAgain(tt.again, tt.kills)
			if got := times(own); !slices.Equal(got, tt.wantOwn) {
				t.Errorf("action's kills %v, want %v", got, tt.wantOwn)
			}
			if tt.again != nil && !slices.Equal(times(tt.again.Kills), tt.wantMine) {
				t.Errorf("again's kills %v, want %v", times(tt.again.Kills), tt.wantMine)
			}
		})
	}
}

// TestActAgain drives act with action.again on the fake engine: the
// signal goes out twice, the again at its time after the action, with its
// own kill event; for kind stop it is SIGTERM while docker stop waits, and
// the grace period's SIGKILL stays the action's; a replica gone by then is
// the engine's error in the again's record, not the run's.
func TestActAgain(t *testing.T) {
	const again = 60 * time.Millisecond
	tests := []struct {
		name      string
		sets      []string
		replica   fakeScript
		wantCalls string
		wantExit  int
		wantKills []int // the action's
		wantAgain []int // the again's
		againErr  string
	}{
		{"signal twice", nil, replica(exitsOn("SIGTERM", 0, 150*time.Millisecond)),
			"Kill replica-0 SIGTERM,Kill replica-0 SIGTERM", 0, []int{15}, []int{15}, ""},
		{"SIGINT twice", []string{"action.stop_signal=SIGINT"}, replica(exitsOn("SIGINT", 130, 150*time.Millisecond)),
			"Kill replica-0 SIGINT,Kill replica-0 SIGINT", 130, []int{2}, []int{2}, ""},
		{"stop, then SIGTERM while it waits", []string{"action.kind=stop", "action.grace_period=12s"}, replica(nil),
			"Stop replica-0,Kill replica-0 SIGTERM", 137, []int{15, 9}, []int{15}, ""},
		{"replica gone by then", nil, replica(exitsOn("SIGTERM", 0, 0)),
			"Kill replica-0 SIGTERM,Kill replica-0 SIGTERM", 0, []int{15}, nil, "not running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine(map[string]fakeScript{"replica-0": tt.replica})
			v := fakeVariant(t, "direct-inflight", 300*time.Millisecond, tt.sets...)
			d := scenarios.Duration(again)
			v.Spec.Action.Again = &d
			x := newFakeRun(t, f, v)
			if err := x.act(context.Background(), time.Now().Add(-x.spec.Action.At.D())); err != nil {
				t.Fatal(err)
			}
			calls := strings.Join(slices.DeleteFunc(f.Calls(), func(c string) bool {
				return !strings.HasPrefix(c, "Kill") && !strings.HasPrefix(c, "Stop")
			}), ",")
			if calls != tt.wantCalls {
				t.Errorf("calls %s, want %s", calls, tt.wantCalls)
			}
			checkAction(t, x, tt.wantExit, tt.wantKills, false, false)
			rec := x.meta.Action
			a := rec.Again
			if a == nil || a.Kind != record.StepAgain || a.Signal != againSignal(v.Spec.Action) || a.AfterMs != ms(v.Spec.Action.At.D()+again) {
				t.Fatalf("again %+v", a)
			}
			if d := time.Duration(a.SentNs - rec.SentNs); d < again || d > again+100*time.Millisecond {
				t.Errorf("again sent %s after the action, want %s", d, again)
			}
			var sigs []int
			for _, k := range a.Kills {
				sigs = append(sigs, k.Signal)
			}
			if !slices.Equal(sigs, tt.wantAgain) || !strings.Contains(a.Error, tt.againErr) || (tt.againErr == "") != (a.Error == "") {
				t.Errorf("again kills %v error %q, want %v and %q", sigs, a.Error, tt.wantAgain, tt.againErr)
			}
		})
	}
}

// TestSignalNumbersCoverScenarioSignals: every signal a scenario may send
// has its Linux number here, or its engine kill event would never match.
func TestSignalNumbersCoverScenarioSignals(t *testing.T) {
	for _, s := range scenarios.Signals {
		if signalNumbers[s] == 0 {
			t.Errorf("%s has no signal number", s)
		}
	}
}
