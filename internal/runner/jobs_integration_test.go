package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/document"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// jobsScenario is a small jobs load: two worker replicas (mode full, 2
// workers each, running jobs cut 100 ms after the signal), 6 jobs of
// 4 x 250 ms in one batch, replica 0 signalled at 1.5 s and again 100 ms
// later. Its first four jobs run 0-1 s on both replicas; the last two
// start at ~1 s, so replica 0 is in the middle of one at the signal, cuts
// it at the checkpoint after 1.6 s and hands it back to replica 1.
const jobsScenario = `name: jobs-integration
runs: 1
replicas: 2
target:
  mode: full
  env: {WORKER_DEADLINE_MS: "100", WORKER_CONCURRENCY: "2"}
load:
  kind: jobs
  duration: 10s
  jobs: {count: 6, steps: 4, step_ms: 250, idempotent: true}
action:
  kind: signal
  at: 1500ms
  again: 100ms
observe:
  window: 8s
`

// TestJobsEndToEnd runs jobsScenario on Docker: Postgres on the run
// network, the workers, the producer, the roll of replica 0, the ledger.
// The ledger accounts for all 6 jobs (classes adding up, nothing missing),
// every job settled, and the stop for the ledger left no trace on replica 1.
func TestJobsEndToEnd(t *testing.T) {
	r := newRunner(t)
	p := filepath.Join(t.TempDir(), "jobs-integration.yaml")
	if err := os.WriteFile(p, []byte(jobsScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	res, err := document.Rebuild(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if oc.Runs != 1 || len(res.Variants) != 1 || len(res.Variants[0].Runs) != 1 {
		t.Fatalf("outcome %+v, want exactly one run", oc)
	}
	run := res.Variants[0].Runs[0]
	if !run.Valid {
		t.Fatalf("run invalid: %s", run.Reason)
	}
	m := run.Meta
	line, j := m.JobsLine(), m.Jobs()
	if line == nil || j == nil {
		t.Fatalf("jobs line %+v, ledger %+v", line, j)
	}
	sum := 0
	for _, c := range record.JobClasses {
		sum += j.ByClass[c]
	}
	t.Logf("measured: %d jobs inserted in %.1f ms, settled %v after %.0f ms; ledger %v, steps twice %d, missing %d",
		len(line.IDs), float64(line.LastInsertNs-line.FirstInsertNs)/1e6, line.Settled,
		float64(line.SettledNs-line.FirstInsertNs)/1e6, j.ByClass, j.StepsTwice, j.StepsMissing)
	if len(line.IDs) != 6 || !line.Settled || j.Inserted != 6 || sum != 6 || len(j.Entries) != 6 || j.Error != "" {
		t.Errorf("jobs line %+v, ledger inserted %d classes sum %d entries %d error %q: want 6 settled, classes adding up",
			line, j.Inserted, sum, len(j.Entries), j.Error)
	}
	if done := j.ByClass[record.JobCompletedOnce] + j.ByClass[record.JobCompletedHandover]; done != 6 || j.StepsMissing != 0 || len(j.Problems) > 0 {
		t.Errorf("completed %d, steps missing %d, problems %q: want 6 completed, nothing missing", done, j.StepsMissing, j.Problems)
	}
	for _, e := range j.Entries {
		for _, r := range e.Runs {
			t.Logf("job %d (%s): %s attempt %d, %.0f-%.0f ms after the signal, %d steps: %s", e.ID, e.Class, r.Client,
				r.Attempt, float64(r.StartedNs-m.Action.SentNs)/1e6, float64(r.EndedNs-m.Action.SentNs)/1e6, len(r.StepsNs), r.Outcome)
		}
	}
	checkJobsReplicas(t, m)
}

// checkJobsReplicas: replica 0 exited by itself after the signal (and
// got the again); replica 1, stopped only for the ledger, is recorded as
// still running with no event from that stop.
func checkJobsReplicas(t *testing.T, m record.Meta) {
	t.Helper()
	if len(m.Replicas) != 2 {
		t.Fatalf("replicas %+v", m.Replicas)
	}
	a, b := m.Replicas[0], m.Replicas[1]
	if !a.Exited || a.ExitCode == nil || *a.ExitCode != 0 || a.Env["WORKER"] != "on" {
		t.Errorf("replica 0: exited %v code %v env %v; want exit 0 as a worker", a.Exited, a.ExitCode, a.Env)
	} else {
		t.Logf("measured: replica 0 exited 0 %.0f ms after the signal", float64(a.ExitedNs-m.Action.SentNs)/1e6)
	}
	if b.Exited || b.ExitCode != nil {
		t.Errorf("replica 1: exited %v code %v; its stop for the ledger must not be recorded", b.Exited, b.ExitCode)
	}
	for _, e := range b.Events {
		if e.Event == record.EventSignal || e.Event == record.EventWorkerStopped || e.Event == record.EventExit {
			t.Errorf("replica 1 records %s at %d: its stop for the ledger must not be recorded", e.Event, e.TimeNs)
		}
	}
	again := m.Action.Again
	if again == nil || again.Kind != record.StepAgain || again.SentNs == 0 {
		t.Fatalf("again %+v", again)
	}
	t.Logf("measured: again sent %.1f ms after the action, error %q, kills %v; the action's kills %v",
		float64(again.SentNs-m.Action.SentNs)/1e6, again.Error, again.Kills, m.Action.Kills)
	if again.Error == "" && (len(again.Kills) != 1 || again.Kills[0].Signal != 15) {
		t.Errorf("again kills %v, want its one SIGTERM", again.Kills)
	}
	if len(m.Action.Kills) != 1 || m.Action.Kills[0].Signal != 15 {
		t.Errorf("action kills %v, want its own SIGTERM only", m.Action.Kills)
	}
}

// TestJobsWithDBRequests adds the /db load to jobsScenario (2 closed-loop
// clients, GET /db?ms=100 on replica 0, the one signalled): the producer's
// request lines are the agent's, so the run is valid only when they
// account for themselves, and the ledger still adds up.
func TestJobsWithDBRequests(t *testing.T) {
	r := newRunner(t, "load.jobs.http_clients=2", "load.jobs.http_ms=100", "load.duration=6s")
	p := filepath.Join(t.TempDir(), "jobs-integration.yaml")
	if err := os.WriteFile(p, []byte(jobsScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	res, err := document.Rebuild(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	run := res.Variants[0].Runs[0]
	if !run.Valid {
		t.Fatalf("run invalid: %s", run.Reason)
	}
	m := run.Meta
	if m.Agent == nil || m.Agent.Started == 0 || m.Jobs() == nil || m.Jobs().Inserted != 6 || m.Jobs().Error != "" {
		t.Fatalf("agent summary %+v, ledger %+v", m.Agent, m.Jobs())
	}
	t.Logf("measured: %d /db requests by class %v; ledger %v", m.Agent.Started, m.Agent.ByClass, m.Jobs().ByClass)
}
