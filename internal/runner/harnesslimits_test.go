package runner

import (
	"context"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// The load agent runs under the scenario's harness limits (defaults when
// none are given); the target replicas run as their image ships, with no
// limit the harness chose.
func TestHarnessLimitsOnAgentOnly(t *testing.T) {
	for _, tt := range []struct {
		sets     []string
		mem, pid int64
	}{
		{nil, scenarios.DefaultHarnessMemoryMB << 20, scenarios.DefaultHarnessPIDs},
		{[]string{"limits.memory_mb=2048", "limits.pids=100"}, 2048 << 20, 100},
	} {
		f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica()})
		x := newFakeRun(t, f, fakeVariant(t, "direct-inflight", 300*time.Millisecond, tt.sets...))
		if err := x.startAgent(context.Background(), x.obj.labels); err != nil {
			t.Fatal(err)
		}
		var agent, replicas int
		for _, c := range f.containers {
			switch c.role {
			case "agent":
				agent++
				if c.spec.MemoryBytes != tt.mem || c.spec.PidsLimit != tt.pid {
					t.Errorf("%v: agent limits %d bytes, %d pids; want %d, %d", tt.sets, c.spec.MemoryBytes, c.spec.PidsLimit, tt.mem, tt.pid)
				}
			case "replica-0":
				replicas++
				if c.spec.MemoryBytes != 0 || c.spec.PidsLimit != 0 || c.spec.NanoCPUs != 0 {
					t.Errorf("%v: the target got limits %+v; it must run as its image ships", tt.sets, c.spec)
				}
			}
		}
		if agent != 1 || replicas != 1 {
			t.Fatalf("%v: %d agents and %d replicas started, want one each", tt.sets, agent, replicas)
		}
	}
}
