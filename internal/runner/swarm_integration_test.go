package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/capabilities/rollout"
	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
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
// converges with two old and two new tasks read back from the engine. A
// none target's old tasks die of the signal (143 behind init) and sever
// requests (10-16 per run measured); a full target's old tasks exit 0
// after it, unkilled, no failed request of its was written before an old
// task's kill event and ended after it, and it fails fewer requests than
// none in the same order. Not zero: a request written onto a keep-alive
// connection the draining task is closing fails (the idle-close race: 0,
// 1, 3 in the example's full start-first runs, results/examples/
// swarm-rollout). The kill event is an upper bound on the signal's arrival
// (it came after all 13 of a none run's failures once), so the in-flight
// count is asserted for full, where it can only under-count, and not
// required of none. start-first starts each slot's new task (healthy) before
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
	failed := map[string]int{} // rollout_failed by "mode,order"
	if len(res.Variants) != 4 {
		t.Fatalf("%d variants, want 4 (mode x order)", len(res.Variants))
	}
	for _, v := range res.Variants {
		run := v.Runs[0]
		m, ro := run.Metrics, run.Meta.Rollout()
		rm := rollout.Of(&m)
		if !run.Valid || ro == nil || rm == nil {
			t.Errorf("%s: valid %v (%s), rollout recorded %v", v.Label, run.Valid, run.Reason, ro != nil)
			continue
		}
		t.Logf("%s: requests %d, rollout_failed %d %v, rollout_ms %v, old exit %v, stop->exit %v ms",
			v.Label, m.Requests, rm.RolloutFailed, m.ByClass, deref(rm.RolloutMs), deref(rm.OldExitCode), deref(rm.OldStopToExitMs))
		inflight := failedInFlightAtSignal(t, resultdir.RunDir(oc.Dir, v.Slug, 1), ro)
		t.Logf("%s: %d failed requests were in flight at an old task's kill event", v.Label, inflight)
		checkRollout(t, v.Label, run.Meta.Params, m, ro, inflight)
		failed[run.Meta.Params["target.mode"]+","+run.Meta.Params["action.rollout.order"]] = rollout.Of(&m).RolloutFailed
	}
	for _, order := range []string{"start-first", "stop-first"} {
		if f, n := failed["full,"+order], failed["none,"+order]; f >= n {
			t.Errorf("%s: full failed %d requests, none %d: want fewer for full", order, f, n)
		}
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
func checkRollout(t *testing.T, label string, params map[string]string, m report.Metrics, ro *record.Rollout, inflight int) {
	t.Helper()
	if !ro.Converged || rollout.Of(&m).RolloutMs == nil {
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
	if len(old) != 2 || len(fresh) != 2 || rollout.Of(&m).TaskRestarts != 0 {
		t.Errorf("%s: %d old and %d new slots, %d restarts; want 2, 2, 0", label, len(old), len(fresh), rollout.Of(&m).TaskRestarts)
	}
	switch params["target.mode"] {
	case "full":
		if inflight != 0 || rollout.Of(&m).OldExitCode == nil || *rollout.Of(&m).OldExitCode != 0 || rollout.Of(&m).OldTasksKilled != 0 {
			t.Errorf("%s: %d failed in flight at a stop signal, old exit %v, %d killed; want 0, 0, 0",
				label, inflight, deref(rollout.Of(&m).OldExitCode), rollout.Of(&m).OldTasksKilled)
		}
	case "none":
		if rollout.Of(&m).OldExitCode == nil || *rollout.Of(&m).OldExitCode == 0 || rollout.Of(&m).RolloutFailed == 0 {
			t.Errorf("%s: old exit %v, %d failed; want death by the signal, and severed requests",
				label, deref(rollout.Of(&m).OldExitCode), rollout.Of(&m).RolloutFailed)
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

// failedInFlightAtSignal counts the run's failed requests that were in
// flight at an old task's kill event: fully written before it (or started
// before it, when never written) and ended after it. Only a dying task
// fails requests here, so these are drops; the kill event being an upper
// bound on the signal's arrival, the count can only be low.
func failedInFlightAtSignal(t *testing.T, runDir string, ro *record.Rollout) int {
	t.Helper()
	var signals []int64
	for _, tk := range ro.Tasks {
		if tk.Generation == record.GenerationOld && tk.SignalNs > 0 {
			signals = append(signals, tk.SignalNs)
		}
	}
	f, err := os.Open(filepath.Join(runDir, resultdir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	err = report.ReadRecords(f, runDir, func(r *record.Request) error {
		if r.Class == record.ClassOK {
			return nil
		}
		sent := r.Written
		if sent == 0 {
			sent = r.Start
		}
		for _, s := range signals {
			if sent < s && r.End >= s {
				n++
				break
			}
		}
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
