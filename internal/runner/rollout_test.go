package runner

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// TestApplyEvents: a task's stop signal is its container's first kill
// event, a later SIGKILL is the grace period running out, health events
// are counted; other containers' events are ignored.
func TestApplyEvents(t *testing.T) {
	evs := []record.SwarmEvent{
		{TimeNs: 1, Action: "start", ContainerID: "a"},
		{TimeNs: 2, Action: "health_status: healthy", ContainerID: "a"},
		{TimeNs: 3, Action: "kill", Signal: 15, ContainerID: "b"},
		{TimeNs: 4, Action: "kill", Signal: 15, ContainerID: "a"},
		{TimeNs: 5, Action: "health_status: unhealthy", ContainerID: "a"},
		{TimeNs: 6, Action: "health_status: unhealthy", ContainerID: "a"},
		{TimeNs: 7, Action: "kill", Signal: 9, ContainerID: "a"},
		{TimeNs: 8, Action: "die", ContainerID: "a"},
	}
	rt := record.SwarmTask{ContainerID: "a"}
	applyEvents(&rt, evs)
	if rt.SignalNs != 4 || rt.Signal != 15 || rt.KillNs != 7 || rt.HealthyNs != 2 || rt.Unhealthy != 2 || rt.UnhealthyNs != 5 {
		t.Errorf("task a: %+v", rt)
	}
	none := record.SwarmTask{}
	applyEvents(&none, evs)
	if none.SignalNs != 0 || none.HealthyNs != 0 {
		t.Errorf("a task without a container took events: %+v", none)
	}
}
