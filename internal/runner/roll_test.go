package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestRoll: start-first starts the replacement and waits until it is up
// (and one health interval) before replica A is stopped; stop-first stops
// A first; replacement none starts nothing. The replacement is recorded
// with the time it logged "up".
func TestRoll(t *testing.T) {
	tests := []struct {
		name  string
		sets  []string
		order []string // calls that must happen in this order
		none  bool     // no replacement starts
		stop  bool     // via docker stop (the file sets a signal: no --set)
	}{
		{"start-first", []string{"action.roll.replacement=start-first"}, []string{"Run replica-2", "Kill replica-0 SIGTERM"}, false, false},
		{"stop-first", []string{"action.roll.replacement=stop-first"}, []string{"Kill replica-0 SIGTERM", "Run replica-2"}, false, false},
		{"stop-first via stop", []string{"action.roll.replacement=stop-first"}, []string{"Stop replica-0", "Run replica-2"}, false, true},
		{"none", nil, []string{"Kill replica-0 SIGTERM"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := happyReplica()
			f := newFakeEngine(map[string]fakeScript{"replica-0": rep, "replica-1": rep, "replica-2": rep})
			v := fakeVariant(t, "roll-behind-caddy", 300*time.Millisecond, tt.sets...)
			v.Spec.Proxy.HealthInterval = scenarios.Duration(10 * time.Millisecond)
			if tt.stop {
				v.Spec.Action.Roll.Via, v.Spec.Action.Signal = scenarios.ActionStop, ""
			}
			x := newFakeRun(t, f, v)
			if err := x.act(context.Background(), time.Now().Add(-x.spec.Action.At.D())); err != nil {
				t.Fatalf("roll: %v", err)
			}
			calls := f.Calls()
			last := -1
			for _, c := range tt.order {
				i := indexOf(calls, c)
				if i <= last {
					t.Fatalf("calls %q: want %q in this order", calls, tt.order)
				}
				last = i
			}
			if x.meta.Action == nil || !x.meta.Action.Roll || !x.obs.exited {
				t.Errorf("action %+v, observation %+v: want a roll whose replica A exited", x.meta.Action, x.obs)
			}
			checkReplacement(t, x, tt.none)
		})
	}
}

// checkReplacement checks the recorded replacement (none: there is none).
func checkReplacement(t *testing.T, x *run, none bool) {
	t.Helper()
	rep := x.meta.Replacement
	if none {
		if rep != nil || len(x.obj.replicas) != 2 {
			t.Errorf("replacement %+v, %d replicas: want none", rep, len(x.obj.replicas))
		}
		return
	}
	if rep == nil || len(x.obj.replicas) != 3 {
		t.Fatalf("replacement %+v, %d replicas: want replica-2 started", rep, len(x.obj.replicas))
	}
	if rep.Name != "replica-2" || rep.Strategy != string(x.spec.Action.Roll.Replacement) || rep.StartedNs == 0 || rep.UpNs < rep.StartedNs {
		t.Errorf("replacement %+v: want replica-2, its strategy, up after its start", rep)
	}
	if want := rep.UpNs + int64(x.spec.Proxy.HealthInterval.D()); rep.HealthyByNs != want {
		t.Errorf("healthy by %d, want up + one health interval = %d", rep.HealthyByNs, want)
	}
}

// TestRollReplacementFails: a replacement that cannot start, or never
// comes up, ends the roll with the reason; with start-first replica A is
// then never stopped.
func TestRollReplacementFails(t *testing.T) {
	tests := []struct {
		name, replacement string
		fail              string
		script            fakeScript
		want              string
		killed            bool // replica A was signalled
	}{
		{"start-first, run fails", "start-first", "Run replica-2", happyReplica(), errEngine.Error(), false},
		{"start-first, never up", "start-first", "", fakeScript{stdout: []string{"boot"}, exitAfter: time.Millisecond, exitCode: 1},
			"replica-2 exited with code 1 before it was ready", false},
		{"stop-first, run fails", "stop-first", "Run replica-2", happyReplica(), errEngine.Error(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "replica-1": happyReplica(), "replica-2": tt.script})
			if tt.fail != "" {
				f.fail[tt.fail] = errEngine
			}
			v := fakeVariant(t, "roll-behind-caddy", 300*time.Millisecond, "action.roll.replacement="+tt.replacement)
			x := newFakeRun(t, f, v)
			err := x.act(context.Background(), time.Now().Add(-x.spec.Action.At.D()))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("roll: %v, want %q", err, tt.want)
			}
			if killed := indexOf(f.Calls(), "Kill replica-0") >= 0; killed != tt.killed {
				t.Errorf("replica A signalled: %v, want %v (calls %q)", killed, tt.killed, f.Calls())
			}
		})
	}
}
