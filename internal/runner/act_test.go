package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFire drives act (and so fire) against the fake engine: the action
// is recorded (sent and returned times, the engine's kill events), an exit
// within the window is observed with its code, no exit within the window
// is NEVER, an exit the engine dates after the window is NEVER too, and an
// engine failure ends the action with an error naming it.
func TestFire(t *testing.T) {
	const window = 300 * time.Millisecond
	ignoresAll := replica(nil)
	tests := []struct {
		name       string
		sets       []string
		replica    fakeScript
		fail       string // "Method replica-0" made to fail
		exitsFirst bool   // the replica exits (code 3) before the action
		wantErr    string // "" = none
		wantExit   int    // -1 = NEVER exited within the window
		wantKills  []int
		wantRecErr bool // record.Action.Error set
		killsErr   bool // record.Action.KillsError set
		noAction   bool // nothing was sent: no action recorded
	}{
		{name: "signal handled", replica: replica(exitsOn("SIGTERM", 0, 5*time.Millisecond)), wantExit: 0, wantKills: []int{15}},
		{name: "signal ignored: NEVER", replica: ignoresAll, wantExit: -1, wantKills: []int{15}},
		{name: "SIGINT exits at once", sets: []string{"action.stop_signal=SIGINT"}, replica: replica(exitsOn("SIGINT", 130, 0)), wantExit: 130, wantKills: []int{2}},
		// The engine dates the exit past the window: not an exit within it.
		{name: "exit after the window is NEVER", replica: replica(map[string]fakeReaction{"SIGTERM": {late: 2 * window}}), wantExit: -1, wantKills: []int{15}},
		{name: "stop, TERM handled", sets: []string{"action.kind=stop", "action.grace_period=1s"}, replica: replica(exitsOn("SIGTERM", 0, 0)), wantExit: 0, wantKills: []int{15}},
		{name: "stop, grace ends in SIGKILL", sets: []string{"action.kind=stop", "action.grace_period=2s"}, replica: ignoresAll, wantExit: 137, wantKills: []int{15, 9}},
		{name: "kill fails", replica: ignoresAll, fail: "Kill replica-0", wantErr: "action signal: " + errEngine.Error(), wantExit: -1, wantRecErr: true},
		{name: "stop fails", sets: []string{"action.kind=stop"}, replica: ignoresAll, fail: "Stop replica-0", wantErr: "action stop: " + errEngine.Error(), wantExit: -1, wantRecErr: true},
		{name: "inspect fails", replica: ignoresAll, fail: "Inspect replica-0", wantErr: errEngine.Error(), noAction: true},
		{name: "wait fails", replica: ignoresAll, fail: "WaitExit replica-0", wantErr: errEngine.Error(), wantExit: -1, wantKills: []int{15}},
		{name: "kill events unavailable", replica: replica(exitsOn("SIGTERM", 0, 0)), fail: "WatchKills replica-0", wantExit: 0, killsErr: true},
		{name: "exited before the action", replica: replica(nil), exitsFirst: true, wantErr: "replica 0 exited before the action (code 3)", noAction: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := tt.replica
			if tt.exitsFirst {
				script.exitAfter, script.exitCode = time.Millisecond, 3
			}
			f := newFakeEngine(map[string]fakeScript{"replica-0": script})
			x := newFakeRun(t, f, fakeVariant(t, "direct-inflight", window, tt.sets...))
			if tt.fail != "" {
				f.fail[tt.fail] = errEngine
			}
			ctx := context.Background()
			if tt.exitsFirst {
				if exited, _, _ := f.WaitExit(ctx, x.obj.replicas[0].ID, time.Minute); !exited {
					t.Fatal("the replica did not exit by itself")
				}
			}
			err := x.act(ctx, time.Now().Add(-x.spec.Action.At.D()))
			if got := errText(err); got != tt.wantErr {
				t.Fatalf("act: %q, want %q", got, tt.wantErr)
			}
			var inv *errInvalid
			if tt.exitsFirst != errors.As(err, &inv) {
				t.Errorf("err %T: an invalid-run error exactly when the replica exited first", err)
			}
			if tt.noAction {
				if x.meta.Action != nil {
					t.Errorf("action %+v recorded, want none: nothing was sent", x.meta.Action)
				}
				return
			}
			checkAction(t, x, tt.wantExit, tt.wantKills, tt.wantRecErr, tt.killsErr)
		})
	}
}

// checkAction checks the recorded action and the observed exit.
func checkAction(t *testing.T, x *run, wantExit int, wantKills []int, recErr, killsErr bool) {
	t.Helper()
	rec := x.meta.Action
	if rec == nil {
		t.Fatal("no action recorded")
	}
	if rec.SentNs == 0 || rec.ReturnedNs < rec.SentNs && !recErr {
		t.Errorf("sent %d returned %d: want both, returned not before sent", rec.SentNs, rec.ReturnedNs)
	}
	if (rec.Error != "") != recErr || (rec.KillsError != "") != killsErr {
		t.Errorf("action error %q, kills error %q; want error %v, kills error %v", rec.Error, rec.KillsError, recErr, killsErr)
	}
	var kills []int
	for _, k := range rec.Kills {
		kills = append(kills, k.Signal)
		if k.TimeNs < rec.SentNs {
			t.Errorf("kill event at %d before the action was sent (%d)", k.TimeNs, rec.SentNs)
		}
	}
	if !slices.Equal(kills, wantKills) {
		t.Errorf("kill events %v, want %v", kills, wantKills)
	}
	switch {
	case wantExit < 0 && x.obs.exited:
		t.Errorf("observed exit %d, want NEVER within the window", x.obs.state.ExitCode)
	case wantExit >= 0 && (!x.obs.done || !x.obs.exited || x.obs.state.ExitCode != wantExit):
		t.Errorf("observation %+v, want exit %d within the window", x.obs, wantExit)
	}
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestActNone: action kind none does nothing at all.
func TestActNone(t *testing.T) {
	f := newFakeEngine(map[string]fakeScript{"replica-0": replica(nil)})
	x := newFakeRun(t, f, fakeVariant(t, "direct-inflight", time.Second, "action.kind=none"))
	if err := x.act(context.Background(), time.Now()); err != nil || x.meta.Action != nil {
		t.Errorf("act: %v, action %+v; want nothing", err, x.meta.Action)
	}
	if calls := strings.Join(f.Calls(), ","); strings.Contains(calls, "Kill") || strings.Contains(calls, "WatchKills") {
		t.Errorf("calls %s: want no kill and no watch", calls)
	}
}

// TestActInterrupted: Ctrl-C while waiting for the planned moment ends
// act with the context's error and fires nothing.
func TestActInterrupted(t *testing.T) {
	f := newFakeEngine(map[string]fakeScript{"replica-0": replica(nil)})
	x := newFakeRun(t, f, fakeVariant(t, "direct-inflight", time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := x.act(ctx, time.Now()); !errors.Is(err, context.Canceled) || x.meta.Action != nil {
		t.Errorf("act: %v, action %+v; want context.Canceled and no action", err, x.meta.Action)
	}
}
