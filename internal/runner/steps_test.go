package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestSplitKills: a kill event before the action's send time belongs to
// the last step sent before it; the rest (and any from before every step)
// stay the action's.
func TestSplitKills(t *testing.T) {
	k := func(ns int64, sig int) record.Kill { return record.Kill{TimeNs: ns, Signal: sig} }
	tests := []struct {
		name      string
		steps     []int64 // SentNs of each step (0: never sent)
		kills     []record.Kill
		actionNs  int64
		wantSteps [][]int64 // kill times per step
		wantOwn   []int64
	}{
		{"crash then TERM", []int64{100}, []record.Kill{k(110, 12), k(500, 15)}, 400, [][]int64{{110}}, []int64{500}},
		{"two steps", []int64{100, 200}, []record.Kill{k(150, 12), k(210, 12), k(400, 15), k(900, 9)}, 300, [][]int64{{150}, {210}}, []int64{400, 900}},
		{"never fired: every kill is a step's", []int64{100}, []record.Kill{k(110, 12), k(500, 9)}, 0, [][]int64{{110, 500}}, nil},
		{"kill before any step stays the action's", []int64{100}, []record.Kill{k(50, 15)}, 400, [][]int64{nil}, []int64{50}},
		{"a step never sent takes nothing", []int64{100, 0}, []record.Kill{k(110, 12)}, 0, [][]int64{{110}, nil}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := make([]record.Step, len(tt.steps))
			for i, ns := range tt.steps {
				steps[i].SentNs = ns
			}
			own := splitKills(steps, tt.kills, tt.actionNs)
			times := func(ks []record.Kill) []int64 {
				var out []int64
				for _, k := range ks {
					out = append(out, k.TimeNs)
				}
				return out
			}
			if got := times(own); !slices.Equal(got, tt.wantOwn) {
				t.Errorf("action's kills %v, want %v", got, tt.wantOwn)
			}
			for i := range steps {
				if got := times(steps[i].Kills); !slices.Equal(got, tt.wantSteps[i]) {
					t.Errorf("step %d kills %v, want %v", i, got, tt.wantSteps[i])
				}
			}
		})
	}
}

// clusterVariant is cluster-gated with its steps and action moved to the
// given times (ms after load start), for the fake engine.
func clusterVariant(t *testing.T, kind string, stepsMs []int, actionMs int) scenarios.Variant {
	t.Helper()
	v := fakeVariant(t, "cluster-gated", 300*time.Millisecond, "action.kind="+kind)
	v.Spec.Action.Before = nil
	for _, m := range stepsMs {
		v.Spec.Action.Before = append(v.Spec.Action.Before, scenarios.Step{Kind: scenarios.StepCrash, At: scenarios.Duration(time.Duration(m) * time.Millisecond)})
	}
	v.Spec.Action.At = scenarios.Duration(time.Duration(actionMs) * time.Millisecond)
	return v
}

// TestActSteps drives act with steps before the action on the fake
// engine: each step is sent in order before the action as docker kill -s
// SIGUSR2, recorded with its send time and its own kill event, and the
// action keeps only its own kill events; a replica gone before a step
// makes the run invalid and still records the steps sent.
func TestActSteps(t *testing.T) {
	t.Run("crash, crash, then SIGTERM", func(t *testing.T) {
		f := newFakeEngine(map[string]fakeScript{"replica-0": replica(exitsOn("SIGTERM", 0, 5*time.Millisecond))})
		x := newFakeRun(t, f, clusterVariant(t, "signal", []int{10, 30}, 60))
		loadStart := time.Now()
		if err := x.act(context.Background(), loadStart); err != nil {
			t.Fatal(err)
		}
		checkAction(t, x, 0, []int{15}, false, false)
		rec := x.meta.Action
		if len(rec.Before) != 2 {
			t.Fatalf("steps %+v, want 2", rec.Before)
		}
		prev := loadStart.UnixNano()
		for i, st := range rec.Before {
			if st.Kind != record.StepCrash || st.Signal != "SIGUSR2" || st.Error != "" || len(st.Kills) != 1 || st.Kills[0].Signal != 12 {
				t.Errorf("step %d: %+v", i, st)
			}
			if st.SentNs < prev || st.ReturnedNs < st.SentNs || st.SentNs >= rec.SentNs {
				t.Errorf("step %d sent %d returned %d: want in order, before the action (%d)", i, st.SentNs, st.ReturnedNs, rec.SentNs)
			}
			if planned := loadStart.Add(time.Duration(st.AfterMs) * time.Millisecond).UnixNano(); st.SentNs < planned {
				t.Errorf("step %d sent %d before its planned time %d", i, st.SentNs, planned)
			}
			prev = st.SentNs
		}
		calls := strings.Join(f.Calls(), ",")
		if want := "Kill replica-0 SIGUSR2,Kill replica-0 SIGUSR2,Kill replica-0 SIGTERM"; !strings.Contains(strings.ReplaceAll(calls, ",Inspect replica-0", ""), want) {
			t.Errorf("calls %s: want %s in order", calls, want)
		}
	})
	t.Run("stop after a crash keeps SIGTERM and SIGKILL", func(t *testing.T) {
		f := newFakeEngine(map[string]fakeScript{"replica-0": replica(nil)})
		v := clusterVariant(t, "stop", []int{10}, 30)
		two := scenarios.Seconds(2)
		v.Spec.Action.Timeout = &two
		x := newFakeRun(t, f, v)
		if err := x.act(context.Background(), time.Now()); err != nil {
			t.Fatal(err)
		}
		checkAction(t, x, 137, []int{15, 9}, false, false)
		if st := x.meta.Action.Before; len(st) != 1 || len(st[0].Kills) != 1 || st[0].Kills[0].Signal != 12 {
			t.Errorf("steps %+v", st)
		}
	})
	t.Run("replica gone before the second step", func(t *testing.T) {
		script := replica(map[string]fakeReaction{"SIGUSR2": {code: 1}}) // the first crash ends it
		f := newFakeEngine(map[string]fakeScript{"replica-0": script})
		x := newFakeRun(t, f, clusterVariant(t, "signal", []int{5, 20}, 40))
		err := x.act(context.Background(), time.Now())
		var inv *errInvalid
		if want := "replica 0 exited before action.before[1] (crash at 20ms; code 1)"; errText(err) != want || !errors.As(err, &inv) {
			t.Fatalf("act: %v, want invalid %q", err, want)
		}
		rec := x.meta.Action
		if rec == nil || rec.SentNs != 0 || len(rec.Before) != 1 || rec.Before[0].SentNs == 0 || len(rec.Before[0].Kills) != 1 {
			t.Fatalf("action %+v: want an unfired action holding the one step sent and its kill", rec)
		}
		if strings.Contains(strings.Join(f.Calls(), ","), "SIGTERM") {
			t.Error("the action fired after the replica was gone")
		}
	})
	t.Run("kill fails on a step", func(t *testing.T) {
		f := newFakeEngine(map[string]fakeScript{"replica-0": replica(nil)})
		f.fail["Kill replica-0"] = errEngine
		x := newFakeRun(t, f, clusterVariant(t, "signal", []int{5}, 20))
		err := x.act(context.Background(), time.Now())
		if want := fmt.Sprintf("action.before[0] crash: %v", errEngine); errText(err) != want {
			t.Fatalf("act: %v, want %s", err, want)
		}
		if st := x.meta.Action.Before; len(st) != 1 || st[0].Error != errEngine.Error() {
			t.Errorf("steps %+v: want the step with the engine's error", st)
		}
	})
}
