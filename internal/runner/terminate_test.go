package runner

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
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

// hookEngine is the fake engine with an exec that takes took and answers
// code and output, as Docker's exec of a command the image does not have
// does (exit 126, the runtime's message on stdout).
type hookEngine struct {
	*fakeEngine
	took   time.Duration
	code   int
	stdout string
}

func (h *hookEngine) Exec(ctx context.Context, _ string, _ []string, _ time.Duration) (int, []byte, []byte, error) {
	select {
	case <-time.After(h.took):
	case <-ctx.Done():
		return 0, nil, nil, ctx.Err()
	}
	return h.code, []byte(h.stdout), nil, nil
}

// TestTerminateFailedExecHook: an exec hook whose command the image does
// not have fails as the kubelet's does (executePreStopHook: the handler's
// error is a FailedPreStopHook event, and killContainer goes on): the
// stop signal follows the moment the exec returned, not later; the
// failure is recorded with its exit code and output, and said on the
// progress output. A hook that exits 0 is no failure.
func TestTerminateFailedExecHook(t *testing.T) {
	const notFound = `OCI runtime exec failed: exec failed: unable to start container process: exec: "sleep": executable file not found in $PATH: unknown`
	for _, tt := range []struct {
		name   string
		code   int
		failed bool
	}{
		{"command not found: exit 126", 126, true},
		{"the hook ran", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "agent": fakeAgent(3, 3, 0)})
			out := ""
			if tt.failed {
				out = notFound + "\r\n"
			}
			r := newFakeRunner(t, f)
			r.eng = &hookEngine{fakeEngine: f, took: 200 * time.Millisecond, code: tt.code, stdout: out}
			p := &logProgress{Progress: Discard}
			r.opts.Progress = p
			te := scenarios.Terminate{Grace: scenarios.Duration(30 * time.Second), PreStop: &scenarios.PreStop{Exec: []string{"sleep", "3"}}}
			m := r.runOnce(context.Background(), terminateVariant(t, te, time.Second), 1, t.TempDir())
			if !m.Valid {
				t.Fatalf("invalid: %s", m.InvalidReason)
			}
			a := m.Action
			h := a.Termination().Hook
			if h == nil || h.Failed() != tt.failed || h.Code != tt.code || !slices.Equal(h.Command, []string{"sleep", "3"}) {
				t.Fatalf("hook %+v: want failed %v, code %d, the command recorded", h, tt.failed, tt.code)
			}
			if took := time.Duration(h.EndNs - a.Termination().DeletedNs); took < 200*time.Millisecond || took > 400*time.Millisecond {
				t.Errorf("the hook ended %s after the deletion, want its exec's 200 ms", took)
			}
			if gap := time.Duration(a.SentNs - h.EndNs); gap < 0 || gap > 50*time.Millisecond {
				t.Errorf("the stop signal went %s after the hook ended, want at once", gap)
			}
			logged := p.text()
			if !tt.failed {
				if h.Output != "" || strings.Contains(logged, "FailedPreStopHook") {
					t.Errorf("a hook that ran: output %q, logged %q", h.Output, logged)
				}
				return
			}
			if h.Output != notFound {
				t.Errorf("output %q, want the runtime's message", h.Output)
			}
			want := `replica-0: preStop exec ["sleep", "3"] failed (exit 126: command not found in the image; output: "OCI runtime exec failed`
			if !strings.Contains(logged, want) || !strings.Contains(logged, "the kubelet records FailedPreStopHook and sends the stop signal at once") {
				t.Errorf("progress %q, want %q", logged, want)
			}
		})
	}
}

// TestHTTPHookFailure follows the kubelet's runHTTPHandler: an httpGet
// hook fails only when its request gets no answer; a 500 is recorded, not
// a failure (the kubelet does not look at the status).
func TestHTTPHookFailure(t *testing.T) {
	port500, _ := statusServer(t, 0, 500)
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedPort := closed.Addr().(*net.TCPAddr).Port
	closed.Close()
	for _, tt := range []struct {
		name   string
		port   int
		code   int
		failed bool
	}{
		{"answered 500: ran", port500, 500, false},
		{"no answer: failed", closedPort, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := &run{r: &Runner{eng: loopbackEngine{}}, obj: objects{network: "net"}}
			h := &scenarios.PreStop{HTTPGet: &scenarios.HTTPGetHook{Path: "/drain", Port: tt.port}}
			got := x.runHook(context.Background(), &docker.Container{ID: "old"}, h, 5*time.Second, time.Now())
			if got.Failed() != tt.failed || got.Code != tt.code || got.Path != "/drain" || got.Port != tt.port {
				t.Errorf("hook %+v: want failed %v, status %d", got, tt.failed, tt.code)
			}
			if tt.failed && !strings.HasPrefix(got.Failure(), "preStop httpGet /drain on port ") {
				t.Errorf("failure %q", got.Failure())
			}
		})
	}
}
