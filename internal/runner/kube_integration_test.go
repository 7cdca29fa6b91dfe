package runner_test

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities/rollout"
	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/kubeapi"
	"github.com/shutdownlab/shutdownlab/internal/kubetest"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// newKubeRunner is a runner whose platform kubernetes is the cluster of
// kubeconfig, its images pushed through the test registry.
func newKubeRunner(t *testing.T, kubeconfig string, sets ...string) *runner.Runner {
	t.Helper()
	dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, err := runner.New(ctx, runner.Options{Out: t.TempDir(), Sets: append([]string{"platform=kubernetes"}, sets...),
		Progress: runner.NewProgress(os.Stderr), Kube: kubeapi.Config{Kubeconfig: kubeconfig}, Registry: kubetest.Registry()})
	if err != nil {
		t.Fatalf("runner: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestKubeRolloutInflight runs rollout-inflight on a real cluster (make
// test-kube): a Deployment of two Go replicas behind a ClusterIP Service,
// 10 keep-alive clients in an agent pod dialing the Service, the whole
// Deployment rolled by the controller (rollout restart, maxSurge 1,
// maxUnavailable 0), 3 runs per mode. Every run is valid and converges
// with two old and two new pods, each new pod ready before the old pod of
// its step was deleted. A none target's old pods die of SIGTERM (exit
// 143... or 2 for Go's default handler: non-zero) with requests severed;
// a full target's exit 0 unkilled, and none of its failed requests was
// written before an old pod's deletion and ended after it (the deletion
// precedes the signal: the count can only be high, so zero is a proof).
// A namespace no run owns is untouched, and no run namespace is left.
func TestKubeRolloutInflight(t *testing.T) {
	kubeconfig := kubetest.Kubeconfig(t)
	kc := kubetest.Connect(t, kubeconfig)
	by := kubetest.NewBystander(t, kc)
	r := newKubeRunner(t, kubeconfig, "runs=3")
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, find(t, "rollout-inflight"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := report.Load(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Variants) != 2 {
		t.Fatalf("%d variants, want 2 (none, full)", len(res.Variants))
	}
	for _, v := range res.Variants {
		for i, run := range v.Runs {
			m, ro := run.Metrics, run.Meta.Rollout()
			rm := rollout.Of(&m)
			if !run.Valid || ro == nil || rm == nil {
				t.Errorf("%s run %d: valid %v (%s), rollout recorded %v", v.Label, i+1, run.Valid, run.Reason, ro != nil)
				continue
			}
			inflight := failedInFlightAtSignal(t, resultdir.RunDir(oc.Dir, v.Slug, i+1), ro)
			t.Logf("%s run %d: requests %d, rollout_failed %d %v, in flight at a deletion %d, old exit %v, stop->exit %v ms, rollout %v ms",
				v.Label, i+1, m.Requests, rm.RolloutFailed, m.ByClass, inflight, deref(rm.OldExitCode), deref(rm.OldStopToExitMs), deref(rm.RolloutMs))
			checkKubeRollout(t, v.Label, run.Meta.Params["target.mode"], m, ro, inflight)
		}
	}
	by.Untouched(t)
	if left := kubetest.RunNamespaces(t, kc, "shutdownlab-"+r.Engine().Session()); len(left) > 0 {
		t.Errorf("run namespaces left: %v", left)
	}
}

// checkKubeRollout asserts one run's shape on a cluster.
func checkKubeRollout(t *testing.T, label, mode string, m report.Metrics, ro *record.Rollout, inflight int) {
	t.Helper()
	rm := rollout.Of(&m)
	if !ro.Converged || rm.RolloutMs == nil {
		t.Errorf("%s: rollout did not converge (%s %s)", label, ro.UpdateState, ro.UpdateMessage)
	}
	var oldSignals, newReady []int64
	for _, tk := range ro.Tasks {
		if tk.Generation == record.GenerationOld {
			oldSignals = append(oldSignals, tk.SignalNs)
		} else {
			newReady = append(newReady, tk.HealthyNs)
		}
	}
	if len(oldSignals) != 2 || len(newReady) != 2 {
		t.Errorf("%s: %d old and %d new pods; want 2 and 2", label, len(oldSignals), len(newReady))
		return
	}
	sort.Slice(oldSignals, func(i, j int) bool { return oldSignals[i] < oldSignals[j] })
	sort.Slice(newReady, func(i, j int) bool { return newReady[i] < newReady[j] })
	for i := range oldSignals {
		if oldSignals[i] == 0 || newReady[i] == 0 || newReady[i] > oldSignals[i] {
			t.Errorf("%s step %d: new pod ready at %d, old pod deleted at %d; want ready first (maxUnavailable 0)",
				label, i+1, newReady[i], oldSignals[i])
		}
	}
	switch mode {
	case "full":
		if inflight != 0 || rm.OldExitCode == nil || *rm.OldExitCode != 0 || rm.OldTasksKilled != 0 {
			t.Errorf("%s: %d failed in flight at a deletion, old exit %v, %d killed; want 0, 0, 0",
				label, inflight, deref(rm.OldExitCode), rm.OldTasksKilled)
		}
	case "none":
		if rm.OldExitCode == nil || *rm.OldExitCode == 0 || rm.RolloutFailed == 0 {
			t.Errorf("%s: old exit %v, %d failed; want death by the signal, and severed requests",
				label, deref(rm.OldExitCode), rm.RolloutFailed)
		}
	}
}

// TestKubeInterrupted cancels a run on a real cluster once its namespace
// exists (Ctrl-C): the run ends within 4 minutes, its namespace is deleted,
// and a namespace no run owns is untouched.
func TestKubeInterrupted(t *testing.T) {
	kubeconfig := kubetest.Kubeconfig(t)
	kc := kubetest.Connect(t, kubeconfig)
	by := kubetest.NewBystander(t, kc)
	r := newKubeRunner(t, kubeconfig, "runs=1")
	prefix := "shutdownlab-" + r.Engine().Session()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.RunScenario(ctx, find(t, "rollout-inflight"))
		done <- err
	}()
	deadline := time.Now().Add(3 * time.Minute)
	for len(kubetest.RunNamespaces(t, kc, prefix)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no run namespace within 3 minutes")
		}
		time.Sleep(500 * time.Millisecond)
	}
	time.Sleep(5 * time.Second) // into the setup: deployment, service, pods
	cancel()
	select {
	case err := <-done:
		// The interrupted run is recorded (invalid or incomplete), not
		// necessarily returned as an error: what is asserted is that it
		// ends, bounded, and leaves nothing.
		t.Logf("run ended: %v", err)
	case <-time.After(4 * time.Minute):
		t.Fatal("the interrupted run did not end within 4 minutes")
	}
	if left := kubetest.RunNamespaces(t, kc, prefix); len(left) > 0 {
		t.Errorf("run namespaces left after the interrupt: %v", left)
	}
	by.Untouched(t)
}
