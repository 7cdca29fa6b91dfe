package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// swarmState is the engine's swarm state ("inactive", "active").
func swarmState(t *testing.T, eng *docker.Engine) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	info, err := eng.Client().Info(ctx, client.InfoOptions{})
	if err != nil {
		t.Fatalf("docker info: %v", err)
	}
	return string(info.Info.Swarm.LocalNodeState)
}

// TestSwarmRolloutShape runs swarm-rollout once per mode (none, full) and
// order (start-first, stop-first), topology direct: the load agent dials
// the service by name and keeps its connections. Each run initialises a
// single-node swarm when the engine has none and leaves it. Every rollout
// converges with two old and two new tasks read back from the engine; a
// full target fails no request and its old tasks exit 0 after their
// SIGTERM, unkilled; a none target's old tasks die of the signal (143
// behind init). start-first starts each slot's new task (healthy) before
// it signals the old one, stop-first the other way round. Nothing is left:
// no container, network or service of the session, and the swarm is in
// the state it was found in.
func TestSwarmRolloutShape(t *testing.T) {
	r := newRunner(t, "runs=1", "topology=direct", "load.duration=14s", "target.env.PRESTOP_MS=1000")
	before := swarmState(t, r.Engine())
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, find(t, "swarm-rollout"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := report.Load(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Variants) != 4 {
		t.Fatalf("%d variants, want 4 (mode x order)", len(res.Variants))
	}
	for _, v := range res.Variants {
		run := v.Runs[0]
		m, ro := run.Metrics, run.Meta.Rollout
		if !run.Valid || ro == nil || m.RolloutMetrics == nil {
			t.Errorf("%s: valid %v (%s), rollout recorded %v", v.Label, run.Valid, run.Reason, ro != nil)
			continue
		}
		t.Logf("%s: requests %d, rollout_failed %d %v, rollout_ms %v, old exit %v, stop->exit %v ms",
			v.Label, m.Requests, m.RolloutFailed, m.ByClass, deref(m.RolloutMs), deref(m.OldExitCode), deref(m.OldStopToExitMs))
		checkRollout(t, v.Label, run.Meta.Params, m, ro)
	}
	after := swarmState(t, r.Engine())
	if after != before {
		t.Errorf("swarm %q after the runs, %q before", after, before)
	}
	if after == "active" { // a swarm someone else holds: no service of ours on it
		f := client.Filters{}
		f.Add("label", docker.LabelSession+"="+r.Engine().Session())
		svcs, err := r.Engine().Client().ServiceList(ctx, client.ServiceListOptions{Filters: f})
		if err != nil || len(svcs.Items) > 0 {
			t.Errorf("services left behind: %d (%v)", len(svcs.Items), err)
		}
	}
}

// checkRollout asserts one variant's shape.
func checkRollout(t *testing.T, label string, params map[string]string, m report.Metrics, ro *record.Rollout) {
	t.Helper()
	if !ro.Converged || m.RolloutMs == nil {
		t.Errorf("%s: rollout did not converge (%s %s)", label, ro.UpdateState, ro.UpdateMessage)
	}
	old, fresh := map[int]record.SwarmTask{}, map[int]record.SwarmTask{}
	for _, tk := range ro.Tasks {
		if tk.Generation == record.GenerationOld {
			old[tk.Slot] = tk
		} else {
			fresh[tk.Slot] = tk
		}
	}
	if len(old) != 2 || len(fresh) != 2 || m.TaskRestarts != 0 {
		t.Errorf("%s: %d old and %d new slots, %d restarts; want 2, 2, 0", label, len(old), len(fresh), m.TaskRestarts)
	}
	switch params["target.mode"] {
	case "full":
		if m.RolloutFailed != 0 || m.OldExitCode == nil || *m.OldExitCode != 0 || m.OldTasksKilled != 0 {
			t.Errorf("%s: %d failed, old exit %v, %d killed; want 0, 0, 0", label, m.RolloutFailed, deref(m.OldExitCode), m.OldTasksKilled)
		}
	case "none":
		if m.OldExitCode == nil || *m.OldExitCode == 0 {
			t.Errorf("%s: old exit %v, want death by the signal", label, deref(m.OldExitCode))
		}
	}
	for slot, o := range old {
		n := fresh[slot]
		if o.SignalNs == 0 || o.Signal != 15 || n.HealthyNs == 0 {
			t.Errorf("%s slot %d: old signal %d at %d, new healthy at %d", label, slot, o.Signal, o.SignalNs, n.HealthyNs)
			continue
		}
		startFirst := params["action.rollout.order"] == "start-first"
		if startFirst && n.HealthyNs > o.SignalNs || !startFirst && o.FinishedNs > n.HealthyNs {
			t.Errorf("%s slot %d: new task healthy %+.0f ms from the old one's signal, old exit %+.0f ms",
				label, slot, float64(n.HealthyNs-o.SignalNs)/1e6, float64(o.FinishedNs-o.SignalNs)/1e6)
		}
	}
}
