package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// terminateVariant is direct-inflight with action kind terminate and
// block t, acting at 20 ms, watched for window.
func terminateVariant(t *testing.T, te scenarios.Terminate, window time.Duration) scenarios.Variant {
	t.Helper()
	v := fakeVariant(t, "direct-inflight", window)
	v.Spec.Action = scenarios.Action{Kind: scenarios.ActionTerminate, At: scenarios.Duration(20 * time.Millisecond),
		Roll: v.Spec.Action.Roll}
	v.Spec.Action.SetBlock(&te)
	return v
}

func dur(d time.Duration) *scenarios.Duration { v := scenarios.Duration(d); return &v }

// TestTerminate follows the kubelet's termination on the fake engine:
// the hook first, the stop signal when it ends (the phase metrics' T0),
// SIGKILL at the schedule's time for a replica that ignores the signal;
// a hook that outlives the grace period is abandoned then; a hook that
// cannot run is recorded as failed and the signal is sent anyway.
func TestTerminate(t *testing.T) {
	tests := []struct {
		name     string
		replica  fakeScript
		te       scenarios.Terminate
		window   time.Duration
		hook     string        // the hook's kind, "" for none
		signalAt time.Duration // after the deletion, at least
		killed   bool
		check    func(t *testing.T, te *record.Termination)
	}{
		{"sleep hook, then a clean exit", happyReplica(),
			scenarios.Terminate{Grace: scenarios.Duration(time.Second), PreStop: &scenarios.PreStop{Sleep: dur(150 * time.Millisecond)}},
			time.Second, "sleep", 150 * time.Millisecond, false, nil},
		{"no hook, the signal ignored: SIGKILL after the 2 s floor", replica(nil),
			scenarios.Terminate{Grace: scenarios.Duration(time.Second)},
			3 * time.Second, "", 0, true, func(t *testing.T, te *record.Termination) {
				if !te.Extended || te.KillAtNs-te.DeletedNs != int64(2*time.Second) {
					t.Errorf("kill at %d ns after the deletion, extended %v; want 2 s, extended", te.KillAtNs-te.DeletedNs, te.Extended)
				}
			}},
		{"a hook longer than the grace period is abandoned at its end", happyReplica(),
			scenarios.Terminate{Grace: scenarios.Duration(time.Second), PreStop: &scenarios.PreStop{Sleep: dur(time.Minute)}},
			3 * time.Second, "sleep", time.Second, false, func(t *testing.T, te *record.Termination) {
				if !te.Hook.TimedOut || te.Hook.EndNs-te.DeletedNs != int64(time.Second) {
					t.Errorf("hook %+v: want timed out at 1 s", te.Hook)
				}
			}},
		{"an exec hook the engine cannot run fails, the signal follows", happyReplica(),
			scenarios.Terminate{Grace: scenarios.Duration(time.Second), PreStop: &scenarios.PreStop{Exec: []string{"/app", "prestop"}}},
			time.Second, "exec", 0, false, func(t *testing.T, te *record.Termination) {
				if !strings.Contains(te.Hook.Error, "cannot exec") {
					t.Errorf("hook %+v: want the exec refused", te.Hook)
				}
			}},
		{"the app stops during its hook: no signal is due, the run is valid",
			fakeScript{stdout: []string{upLine}, exitAfter: 100 * time.Millisecond},
			scenarios.Terminate{Grace: scenarios.Duration(time.Second), PreStop: &scenarios.PreStop{Sleep: dur(300 * time.Millisecond)}},
			time.Second, "sleep", 300 * time.Millisecond, false, func(t *testing.T, te *record.Termination) {
				if !te.ExitedBeforeSignal {
					t.Errorf("termination %+v: want exited before the signal", te)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine(map[string]fakeScript{"replica-0": tt.replica, "agent": fakeAgent(3, 3, 0)})
			m := newFakeRunner(t, f).runOnce(context.Background(), terminateVariant(t, tt.te, tt.window), 1, t.TempDir())
			if !m.Valid {
				t.Fatalf("invalid: %s", m.InvalidReason)
			}
			a := m.Action
			te := a.Termination()
			if a.Kind != record.ActionTerminate || te == nil || a.Signal != "SIGTERM" || te.Signal != "SIGTERM" {
				t.Fatalf("action %+v termination %+v", a, te)
			}
			if (te.Hook == nil) != (tt.hook == "") || te.Hook != nil && te.Hook.Kind != tt.hook {
				t.Errorf("hook %+v, want kind %q", te.Hook, tt.hook)
			}
			if at := time.Duration(a.SentNs - te.DeletedNs); at < tt.signalAt || at > tt.signalAt+500*time.Millisecond {
				t.Errorf("signal %s after the deletion, want about %s", at, tt.signalAt)
			}
			if (te.KillSentNs != 0) != tt.killed {
				t.Errorf("SIGKILL sent at %d, want sent %v (calls %q)", te.KillSentNs, tt.killed, f.Calls())
			}
			rep := m.Replicas[0]
			if !rep.Exited || tt.killed != (*rep.ExitCode == 137) {
				t.Errorf("replica exited %v code %v, killed want %v", rep.Exited, rep.ExitCode, tt.killed)
			}
			if tt.check != nil {
				tt.check(t, te)
			}
		})
	}
}
