package runner

import (
	"context"
	"testing"
	"time"
)

// The load container logs without rotating during a run (its output is
// read through the followed log stream, which repeats lines across a
// rotation on Docker 20.10); the targets keep the engine's default.
func TestAgentLogDoesNotRotate(t *testing.T) {
	f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica()})
	x := newFakeRun(t, f, fakeVariant(t, "direct-inflight", 300*time.Millisecond))
	if err := x.startAgent(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range f.containers {
		if c.role == "agent" {
			found = true
			if c.spec.LogMaxSize != agentLogMaxSize {
				t.Errorf("agent log max size %q, want %q", c.spec.LogMaxSize, agentLogMaxSize)
			}
		}
	}
	if !found {
		t.Fatal("no agent container started")
	}
}
