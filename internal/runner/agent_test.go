package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// startFakeAgent starts the run's agent container on the fake engine.
func startFakeAgent(t *testing.T, f *fakeEngine, x *run) {
	t.Helper()
	c, err := f.Run(context.Background(), docker.ContainerSpec{Name: x.name + "-agent", Labels: x.obj.labels})
	if err != nil {
		t.Fatal(err)
	}
	x.obj.agent = c
}

// TestAwaitAgent: the load must end by itself within its bound (duration
// + drain + slack) and exit 0; otherwise the run is invalid, saying which
// load did what, with its last stderr lines.
func TestAwaitAgent(t *testing.T) {
	tests := []struct {
		name     string
		scenario string
		agent    fakeScript
		stderr   string
		instant  bool   // the wait's window passes at once
		fail     bool   // the engine's wait fails
		want     string // "" = no error
		wantWait string // the wait asked of the engine
	}{
		{name: "exits 0", agent: fakeScript{exitAfter: time.Millisecond}},
		{name: "exits 3", agent: fakeScript{exitAfter: time.Millisecond, exitCode: 3}, stderr: "dial: refused\nloadagent: giving up\n",
			want: "load agent exited with code 3 (last lines: dial: refused | loadagent: giving up)"},
		{name: "exits 3 silently", agent: fakeScript{exitAfter: time.Millisecond, exitCode: 3}, want: "load agent exited with code 3 (see agent.log)"},
		// direct-inflight: 6 s of load + 10 s drain + 15 s slack.
		{name: "never ends", instant: true, want: "load agent still running 31s after its load should have ended", wantWait: "WaitExit agent 31s"},
		// p5-idle-socket: 30 s response timeout + 15 s max wait + 15 s slack.
		{name: "probe never ends", scenario: "p5-idle-socket", instant: true, want: "probe still running 1m0s after", wantWait: "WaitExit agent 1m0s"},
		{name: "engine fails", fail: true, want: errEngine.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine(map[string]fakeScript{"replica-0": replica(nil), "agent": tt.agent})
			x := newFakeRun(t, f, fakeVariant(t, cmpOr(tt.scenario, "direct-inflight"), time.Second))
			startFakeAgent(t, f, x)
			x.stream.stderrTail.Write([]byte(tt.stderr))
			f.instant["agent"] = tt.instant
			if tt.fail {
				f.fail["WaitExit agent"] = errEngine
			}
			err := x.awaitAgent(context.Background(), containerAgentOf(x), time.Now())
			if got := errText(err); !strings.Contains(got, tt.want) || (tt.want == "") != (err == nil) {
				t.Errorf("awaitAgent: %q, want %q", got, tt.want)
			}
			var inv *errInvalid
			if tt.want != "" && !tt.fail && !errors.As(err, &inv) {
				t.Errorf("error %T: want one that makes the run invalid", err)
			}
			if tt.wantWait != "" && !slices.Contains(f.Calls(), tt.wantWait) {
				t.Errorf("calls %q: want %q", f.Calls(), tt.wantWait)
			}
		})
	}
}

// TestStopAgent: the agent is asked to stop with SIGTERM, given its drain
// plus 5 s, and killed only when it is still running after that.
func TestStopAgent(t *testing.T) {
	tests := []struct {
		name     string
		agent    *fakeScript // nil: no agent was started
		instant  bool
		killFail bool
		want     []string // the engine calls about the agent, in order
	}{
		{name: "no agent"},
		{name: "stops on SIGTERM", agent: &fakeScript{on: exitsOn("SIGTERM", 0, 0)},
			want: []string{"Kill agent SIGTERM", "WaitExit agent 15s"}},
		{name: "ignores SIGTERM", agent: &fakeScript{}, instant: true,
			want: []string{"Kill agent SIGTERM", "WaitExit agent 15s", "Kill agent SIGKILL"}},
		{name: "already gone", agent: &fakeScript{}, killFail: true, want: []string{"Kill agent SIGTERM"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scripts := map[string]fakeScript{"replica-0": replica(nil)}
			if tt.agent != nil {
				scripts["agent"] = *tt.agent
			}
			f := newFakeEngine(scripts)
			x := newFakeRun(t, f, fakeVariant(t, "direct-inflight", time.Second))
			if tt.agent != nil {
				startFakeAgent(t, f, x)
			}
			f.instant["agent"] = tt.instant
			if tt.killFail {
				f.fail["Kill agent"] = errEngine
			}
			x.stopAgent(context.Background(), containerAgentOf(x))
			var got []string
			for _, c := range f.Calls() {
				if strings.Contains(c, " agent") && !strings.HasPrefix(c, "Run") {
					got = append(got, c)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("calls %q, want %q", got, tt.want)
			}
		})
	}
}
