package runner

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestPlatformChoice: the scenario's platform picks the implementation of
// the one run lifecycle; a Swarm scenario on an engine that cannot host a
// service (a fake) is an invalid run with the reason, nothing started.
func TestPlatformChoice(t *testing.T) {
	f := newFakeEngine(nil)
	r := newFakeRunner(t, f)
	docker := fakeVariant(t, "direct-inflight", time.Second)
	if p, err := newPlatform(&run{r: r, spec: docker.Spec}); err != nil || p.setUpParts() != (dockerPlatform{}).setUpParts() {
		t.Fatalf("docker scenario: platform %T, err %v", p, err)
	}
	sw := fakeVariant(t, "swarm-rollout", time.Second)
	m := r.runOnce(context.Background(), sw, 1, t.TempDir())
	if m.Valid || !strings.Contains(m.InvalidReason, "platform swarm needs a Docker engine that can host") {
		t.Fatalf("swarm on a fake engine: valid %v, reason %q", m.Valid, m.InvalidReason)
	}
	if calls := f.Calls(); len(calls) != 0 {
		t.Errorf("engine calls for a run that could not begin: %q", calls)
	}
}

// TestSwarmLifecycle runs platform swarm's whole lifecycle on fakes: the
// lease, the overlay, the service and its tasks, the proxy and the agent
// on the shared start wait, the rollout at action.at, then collect (every
// task, old and new, with its generation), teardown (service, sweep,
// lease) and the rollout record — the same lifecycle as Docker's.
func TestSwarmLifecycle(t *testing.T) {
	f := newFakeEngine(map[string]fakeScript{"agent": fakeAgent(3, 3, 0), "proxy": {stdout: []string{caddyReadyLine}},
		"task-1-0": happyReplica(), "task-2-0": happyReplica(), "task-1-1": happyReplica(), "task-2-1": happyReplica()})
	r := newFakeRunner(t, f)
	sw := newFakeSwarm(f)
	r.setService(swarmService, sw)
	v := fakeVariant(t, "swarm-rollout", time.Second)
	v.Spec.Action.At = scenarios.Duration(20 * time.Millisecond)
	m := r.runOnce(context.Background(), v, 1, filepath.Join(t.TempDir(), "run-001"))
	if !m.Valid {
		t.Fatalf("invalid: %s (engine calls %q, swarm calls %q)", m.InvalidReason, f.Calls(), sw.Calls())
	}
	ro := m.Rollout()
	if ro == nil || !ro.Converged || ro.ServiceID != "svc-1" || !ro.SwarmCreated || ro.ForceUpdate != 1 {
		t.Fatalf("rollout record %+v", ro)
	}
	gens := map[string]int{}
	for _, tk := range ro.Tasks {
		gens[tk.Generation]++
	}
	if gens[record.GenerationOld] != 2 || gens[record.GenerationNew] != 2 {
		t.Errorf("task generations %v, want 2 old and 2 new", gens)
	}
	// Tasks is read by collect and, while the rollout runs, by the
	// resource sampling's poll, as often as it ticks: left out here.
	want := []string{"Acquire", "CreateOverlay", "CreateService", "WatchService", "WaitConverged", "Update", "WaitConverged", "RemoveService", "Release"}
	calls := sw.Calls()
	if got := slices.DeleteFunc(slices.Clone(calls), func(c string) bool { return c == "Tasks" }); !slices.Equal(got, want) || !slices.Contains(calls, "Tasks") {
		t.Errorf("swarm calls %q, want %q with Tasks", calls, want)
	}
	var sampled []string
	if m.Resources() != nil {
		for _, rr := range m.Resources().Replicas {
			sampled = append(sampled, rr.Name)
		}
	}
	slices.Sort(sampled)
	if want := []string{"task-1", "task-1-new", "task-2", "task-2-new"}; !slices.Equal(sampled, want) {
		t.Errorf("resource sampling of %q, want every task, old and new: %q", sampled, want)
	}
	if live := f.live(); len(live) != 0 {
		t.Errorf("left running after teardown: %q", live)
	}
}

// TestSwarmAgentNode: a scenario whose agent must run on another node is
// refused with the node to point DOCKER_HOST at, and nothing is left.
func TestSwarmAgentNode(t *testing.T) {
	f := newFakeEngine(nil)
	r := newFakeRunner(t, f)
	sw := newFakeSwarm(f)
	r.setService(swarmService, sw)
	v := fakeVariant(t, "swarm-rollout", time.Second)
	v.Spec.Swarm().AgentNode = "worker-2"
	m := r.runOnce(context.Background(), v, 1, t.TempDir())
	if m.Valid || !strings.Contains(m.InvalidReason, `swarm.agent_node "worker-2"`) || !strings.Contains(m.InvalidReason, `node "fake-node"`) {
		t.Errorf("valid %v reason %q", m.Valid, m.InvalidReason)
	}
	if c := sw.Calls(); c[len(c)-1] != "Release" {
		t.Errorf("lease not released: %q", c)
	}
}

// TestSwarmFaults: an orchestrator that refuses a step makes the run
// invalid with its reason, and teardown still removes what was created
// and gives the lease back.
func TestSwarmFaults(t *testing.T) {
	tests := []struct {
		fail, reason string
		removed      bool // the service existed, so teardown removes it
	}{
		{"CreateService", "create refused", false},
		{"Update", "action rollout: update refused", true},
		{"Tasks", "tasks refused", true},
	}
	for _, tt := range tests {
		t.Run(tt.fail, func(t *testing.T) {
			f := newFakeEngine(map[string]fakeScript{"agent": fakeAgent(3, 3, 0), "proxy": {stdout: []string{caddyReadyLine}},
				"task-1-0": happyReplica(), "task-2-0": happyReplica()})
			r := newFakeRunner(t, f)
			sw := newFakeSwarm(f)
			sw.fail[tt.fail] = errors.New(strings.TrimPrefix(tt.reason, "action rollout: "))
			r.setService(swarmService, sw)
			v := fakeVariant(t, "swarm-rollout", time.Second)
			v.Spec.Action.At = scenarios.Duration(20 * time.Millisecond)
			m := r.runOnce(context.Background(), v, 1, t.TempDir())
			if m.Valid || !strings.Contains(m.InvalidReason, tt.reason) {
				t.Errorf("valid %v reason %q, want %q", m.Valid, m.InvalidReason, tt.reason)
			}
			calls := sw.Calls()
			if slices.Contains(calls, "RemoveService") != tt.removed || calls[len(calls)-1] != "Release" {
				t.Errorf("swarm calls %q: service removed want %v, lease released last", calls, tt.removed)
			}
			if live := f.live(); len(live) != 0 {
				t.Errorf("left running: %q", live)
			}
		})
	}
}
