package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/service"
	"github.com/shutdownlab/shutdownlab/jobs"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// jobsYAML is a jobs scenario for the fake engine: 2 replicas, 3 jobs.
const jobsYAML = `name: jobs-fake
runs: 1
replicas: 2
load:
  kind: jobs
  duration: 2s
  jobs: {count: 3, steps: 2, step_ms: 10}
action: {kind: signal, at: 20ms}
`

// jobsVariant is the first variant of src (a scenario file's text) with
// sets applied and a 300 ms window.
func jobsVariant(t *testing.T, src string, sets ...string) scenarios.Variant {
	t.Helper()
	p := filepath.Join(t.TempDir(), "jobs.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return fakeVariant(t, p, 300*time.Millisecond, sets...)
}

// jobsDBService is the jobs load's database session service
// (capabilities/queuejobs: DatabaseService), whose place fakeDB takes.
const jobsDBService = "jobs-db"

// fakeDB is the jobs load's database (capabilities/queuejobs implements
// the Docker one; fakeDB has its methods) that records its calls on the fake engine's call
// list ("DB start", "DB migrate", "DB account"; errors injected there
// too) and accounts every job as completed once.
type fakeDB struct {
	f    *fakeEngine
	spec service.PostgresSpec
}

func (d *fakeDB) Image(context.Context) (string, error) {
	return "postgres:fake", d.f.call("DB image", "DB image")
}

func (d *fakeDB) Start(_ context.Context, spec service.PostgresSpec) (string, error) {
	d.spec = spec
	return "postgres://fake", d.f.call("DB start", "DB start")
}

func (d *fakeDB) Migrate(context.Context, string) error { return d.f.call("DB migrate", "DB migrate") }

func (d *fakeDB) Account(_ context.Context, _ string, ids []int64) (jobs.Ledger, error) {
	if err := d.f.call("DB account", "DB account"); err != nil {
		return jobs.Ledger{}, err
	}
	var facts []jobs.JobFacts
	for _, id := range ids {
		facts = append(facts, jobs.JobFacts{ID: id, State: "completed", Attempt: 1, Args: jobs.StepArgs{Steps: 1},
			Runs: []jobs.Run{{ID: id, ClientID: "replica-1:8080"}}, Effects: map[int]int{1: 1}})
	}
	return jobs.Classify(ids, facts)
}

// jobsLineOf is a producer's jobs line.
func jobsLineOf(ids string, settled bool) string {
	return fmt.Sprintf(`{"type":"jobs","ids":[%s],"first_insert_ns":1,"last_insert_ns":2,"settled":%v,"settled_ns":3}`, ids, settled)
}

// fakeJobAgent prints its start line, then its jobs line as it exits
// after 100 ms.
func fakeJobAgent(last ...string) fakeScript {
	return fakeScript{stdout: []string{startLine}, exitAfter: 100 * time.Millisecond, final: last}
}

// TestJobsRunFake runs a jobs scenario on the fake engine: the database
// starts and is migrated before any replica, every replica is a worker on
// it, the producer starts once the replicas are up, the replica still
// running after the load is stopped before the ledger is read, and the
// record holds the jobs line and the ledger but nothing of that stop.
func TestJobsRunFake(t *testing.T) {
	sigterm := `{"ts_ns":$NOW,"event":"signal","signal":"terminated"}`
	f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "agent": fakeJobAgent(jobsLineOf("11,12,13", true)),
		"replica-1": replica(map[string]fakeReaction{"SIGTERM": {stdout: []string{sigterm}, after: 5 * time.Millisecond}})})
	db := &fakeDB{f: f}
	v := jobsVariant(t, jobsYAML, "target.env.WORKER_DEADLINE_MS=100")
	r := newFakeRunner(t, f)
	r.setService(jobsDBService, db)
	m := r.runOnce(context.Background(), v, 1, filepath.Join(t.TempDir(), "run-001"))
	if !m.Valid {
		t.Fatalf("invalid: %s", m.InvalidReason)
	}
	calls := f.Calls()
	order := []string{"DB start", "DB migrate", "Run replica-0", "Run replica-1", "Run agent", "Kill replica-0 SIGTERM",
		"WaitExit agent", "Stop replica-1", "DB account", "Sweep"}
	for i := 1; i < len(order); i++ {
		if a, b := lastIndexOf(calls, order[i-1]), lastIndexOf(calls, order[i]); a < 0 || b < 0 || a > b {
			t.Fatalf("%q (%d) should come before %q (%d): %q", order[i-1], a, order[i], b, calls)
		}
	}
	if indexOf(calls, "Stop replica-0") >= 0 {
		t.Errorf("the acted-on replica, gone, was stopped again: %q", calls)
	}
	if db.spec.Alias != "postgres" || db.spec.Network != db.spec.Name[:len(db.spec.Name)-len("-postgres")] ||
		db.spec.Labels["shutdownlab.run"] == "" ||
		db.spec.MemoryBytes != scenarios.DefaultHarnessMemoryMB<<20 || db.spec.PidsLimit != scenarios.DefaultHarnessPIDs {
		t.Errorf("database spec %+v", db.spec)
	}
	if m.LoadKind != "jobs" || m.JobsLine() == nil || !slices.Equal(m.JobsLine().IDs, []int64{11, 12, 13}) || m.LoadEndNs != 3 {
		t.Errorf("kind %q jobs line %+v load end %d", m.LoadKind, m.JobsLine(), m.LoadEndNs)
	}
	if j := m.Jobs(); j == nil || j.Inserted != 3 || j.ByClass[record.JobCompletedOnce] != 3 || len(j.Entries) != 3 || j.RescueAfterMs != 3.6e6 {
		t.Errorf("ledger %+v", j)
	}
	for i, rep := range m.Replicas {
		if rep.Env["WORKER"] != "on" || rep.Env["DATABASE_URL"] != service.DSN("postgres", db.spec.Password) || len(db.spec.Password) != 32 || rep.Env["WORKER_DEADLINE_MS"] != "100" {
			t.Errorf("replica %d env %v", i, rep.Env)
		}
	}
	if a, b := m.Replicas[0], m.Replicas[1]; !a.Exited || b.Exited || b.ExitCode != nil || len(b.Events) != 1 || b.Events[0].Event != "up" {
		t.Errorf("acted-on replica exited %v; the other: exited %v code %v events %+v (want its stop unrecorded)", a.Exited, b.Exited, b.ExitCode, b.Events)
	}
	if got := loadOutcome(v.Spec.Load.Kind, m); got != "3 jobs inserted, settled; ledger: completed_once 3" {
		t.Errorf("outcome %q", got)
	}
}

// TestJobsRunFakeInvalid: what makes a jobs run invalid, with the reason.
func TestJobsRunFakeInvalid(t *testing.T) {
	tests := []struct {
		name  string
		agent fakeScript
		fail  string
		sets  []string
		want  string
	}{
		{"database never starts", fakeJobAgent(jobsLineOf("1", true)), "DB start", nil, errEngine.Error()},
		{"schema not migrated", fakeJobAgent(jobsLineOf("1", true)), "DB migrate", nil, "job queue schema: " + errEngine.Error()},
		{"ledger unreadable", fakeJobAgent(jobsLineOf("1", true)), "DB account", nil, "job ledger: " + errEngine.Error()},
		{"no jobs line", fakeJobAgent(), "", nil, "jobs accounting: 0 jobs lines, want exactly one"},
		{"two jobs lines", fakeJobAgent(jobsLineOf("1", true), jobsLineOf("1", true)), "", nil, "2 jobs lines, want exactly one"},
		{"producer error", fakeJobAgent(`{"type":"jobs","ids":[],"error":"insert refused"}`), "", nil, "the producer failed: insert refused"},
		{"request lines without HTTP", fakeJobAgent(reqLine(1, "ok"), jobsLineOf("1", true)), "", nil, "1 request, 0 probe and 0 summary lines without an HTTP load"},
		{"malformed line", fakeJobAgent("not json", jobsLineOf("1", true)), "", nil, "1 malformed lines (last: "},
		{"HTTP without a summary", fakeJobAgent(reqLine(1, "ok"), jobsLineOf("1", true)), "", []string{"load.jobs.http_clients=2"}, "/db requests: "},
		{"replica will not stop", fakeJobAgent(jobsLineOf("1", true)), "Stop replica-1", nil, "stopping replica-1 for the job ledger"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "replica-1": happyReplica(), "agent": tt.agent})
			if tt.fail != "" {
				f.fail[tt.fail] = errEngine
			}
			r := newFakeRunner(t, f)
			r.setService(jobsDBService, &fakeDB{f: f})
			m := r.runOnce(context.Background(), jobsVariant(t, jobsYAML, tt.sets...), 1, t.TempDir())
			if m.Valid || !strings.Contains(m.InvalidReason, tt.want) {
				t.Errorf("valid %v reason %q, want invalid with %q", m.Valid, m.InvalidReason, tt.want)
			}
			if tt.fail == "DB account" && (m.Jobs() == nil || m.Jobs().Error != errEngine.Error() || m.Jobs().Inserted != 1) {
				t.Errorf("ledger record %+v, want the error", m.Jobs())
			}
			if live := f.live(); len(live) > 0 {
				t.Errorf("left on the engine: %v", live)
			}
		})
	}
}

// TestJobsRunWithoutDB: a runner without a database refuses the kind
// before any image is built.
func TestJobsRunWithoutDB(t *testing.T) {
	r := newFakeRunner(t, newFakeEngine(nil))
	err := r.prepareImages(context.Background(), []scenarios.Variant{jobsVariant(t, jobsYAML)})
	if err == nil || !strings.Contains(err.Error(), "no database service") {
		t.Errorf("prepareImages: %v", err)
	}
}

// TestEventsBefore: the events of a replica stopped for the ledger end
// where the stop began.
func TestEventsBefore(t *testing.T) {
	evs := []record.Event{{TimeNs: 1, Event: "up"}, {TimeNs: 5, Event: "signal"}, {TimeNs: 9, Event: "exit"}}
	for _, tt := range []struct {
		ns   int64
		want int
	}{{0, 3}, {5, 1}, {6, 2}, {100, 3}} {
		if got := eventsBefore(evs, tt.ns); len(got) != tt.want {
			t.Errorf("before %d: %d events, want %d", tt.ns, len(got), tt.want)
		}
	}
}

// lastIndexOf returns the index of the last call starting with prefix, -1
// if none.
func lastIndexOf(calls []string, prefix string) int {
	for i := len(calls) - 1; i >= 0; i-- {
		if strings.HasPrefix(calls[i], prefix) {
			return i
		}
	}
	return -1
}

// TestJobsReplicaEnv: the jobs driver's replica env (WORKER=on) gives
// way to target.env's.
func TestJobsReplicaEnv(t *testing.T) {
	v := jobsVariant(t, jobsYAML, "target.env.WORKER=off")
	d, err := newLoadDriver(v.Spec.Load.Kind)
	if err != nil {
		t.Fatal(err)
	}
	x := &run{r: &Runner{seq: 4}, spec: v.Spec, load: d}
	env := x.targetEnv(1)
	if !slices.Contains(env, "WORKER=off") || slices.Contains(env, "WORKER=on") || !slices.Contains(env, "INSTANCE=replica-1:8080") {
		t.Errorf("env %q: want target.env's WORKER only", env)
	}
}
