package queuejobs

import (
	"github.com/shutdownlab/shutdownlab/capabilities/captest"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/internal/service"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// specOf is the scenario of a jobs file's text.
func specOf(t *testing.T, src string) scenarios.Spec {
	t.Helper()
	sc, err := scenarios.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc.Spec
}

const jobsYAML = "name: t\naction: {kind: signal, at: 20ms}\nload:\n  kind: jobs\n  duration: 2s\n  jobs: {count: 3, steps: 2, step_ms: 10%s}\n"

// TestJobsDriverArgs: the producer's flags for load.jobs, and the /db flags
// only with HTTP clients.
func TestJobsDriverArgs(t *testing.T) {
	d := &driver{password: "pw"}
	spec := specOf(t, strings.Replace(jobsYAML, "%s", "", 1))
	args := strings.Join(d.Args(captest.View{Spec: spec, Seq: 4}), " ")
	for _, w := range []string{"-dsn " + service.DSN("postgres", "pw"), "-count 3", "-rate 0", "-steps 2", "-step-ms 10",
		"-idempotent=false", "-duration 2s", "-http-target replica-0:8080", "-http-clients 0", "-wait-ready /readyz"} {
		if !strings.Contains(args, w) {
			t.Errorf("args %q lack %q", args, w)
		}
	}
	if strings.Contains(args, "-http-ms") || d.Bound(spec) != 2*time.Second {
		t.Errorf("args %q, bound %s: want no /db flags, the duration", args, d.Bound(spec))
	}
	spec = specOf(t, strings.Replace(jobsYAML, "%s", ", http_clients: 4, http_ms: 50", 1))
	args = strings.Join(d.Args(captest.View{Spec: spec, Seq: 4}), " ")
	if !strings.Contains(args, "-http-clients 4 ") || !strings.Contains(args, "-http-ms 50") || !strings.Contains(args, "-id-prefix r4") ||
		d.Bound(spec) != 2*time.Second+runner.AgentDrain {
		t.Errorf("args %q, bound %s", args, d.Bound(spec))
	}
	if env := d.ReplicaEnv(); len(env) != 2 || env[0] != "WORKER=on" || env[1] != "DATABASE_URL="+service.DSN("postgres", "pw") {
		t.Errorf("replica env %q", env)
	}
}

// TestJobsOutcome: the run's one-line outcome from its record.
func TestJobsOutcome(t *testing.T) {
	d := &driver{}
	ids := []int64{1, 2, 3}
	tests := []struct {
		m    record.Meta
		want string
	}{
		{record.Meta{}, "no jobs line"},
		{record.Meta{}.With(&record.JobsLine{IDs: ids, Settled: true}), "3 jobs inserted, settled"},
		{record.Meta{}.With(&record.JobsLine{IDs: ids}), "3 jobs inserted, NOT all settled within the load"},
		{record.Meta{}.With(&record.JobsLine{IDs: ids, QuietNs: 5}, &record.Jobs{ByClass: map[string]int{
			record.JobCompletedOnce: 2, record.JobRunning: 1}, StepsTwice: 1}),
			"3 jobs inserted, NOT all settled (the wait ended when nothing moved); ledger: completed_once 2, running 1, steps twice in 1"},
		{record.Meta{Agent: &record.Summary{Started: 4, ByClass: map[record.Class]int{record.ClassOK: 3, record.ClassRefused: 1}}}.With(
			&record.JobsLine{IDs: ids, Settled: true}, &record.Jobs{Error: "x"}),
			"3 jobs inserted, settled; /db: 4 requests, 1 failed"},
	}
	for _, tt := range tests {
		if got := d.Outcome(tt.m); got != tt.want {
			t.Errorf("outcome %q, want %q", got, tt.want)
		}
	}
	m := record.Meta{}
	line := `{"type":"jobs","ids":[1],"quiet_ns":77}`
	d.Observe(record.TypeJobs, []byte(line))
	d.Collect(&m, &captest.Output{})
	if m.LoadEndNs != 77 || m.JobsLine().QuietNs != 77 {
		t.Errorf("load end %d, line %+v: want the quiet end", m.LoadEndNs, m.JobsLine())
	}
}

// TestRescueAfter: the ledger's rescue time is the workers' setting.
func TestRescueAfter(t *testing.T) {
	for env, want := range map[string]time.Duration{"": time.Hour, "2000": 2 * time.Second, "x": time.Hour, "0": time.Hour} {
		if got := rescueAfter(map[string]string{"RESCUE_AFTER_MS": env}); got != want {
			t.Errorf("RESCUE_AFTER_MS=%q: %s, want %s", env, got, want)
		}
	}
}

// TestJobsProgress: the live progress of a jobs run counts finished jobs from
// the latest jobs_progress line, and the /db requests beside them; a
// malformed progress line makes the run's output malformed.
func TestJobsProgress(t *testing.T) {
	d := &driver{}
	if got := d.ProgressWith(nil); got.Done != 0 || got.Unit != "of 0 jobs finished" {
		t.Errorf("before any line: %+v", got)
	}
	d.Observe(record.TypeJobsProgress, []byte(`{"type":"jobs_progress","ts_ns":1,"finished":1,"inserted":4}`))
	d.Observe(record.TypeJobsProgress, []byte(`{"type":"jobs_progress","ts_ns":2,"finished":3,"inserted":4}`))
	if got := d.ProgressWith(nil); got.Done != 3 || got.Unit != "of 4 jobs finished" || got.Failed != 0 {
		t.Errorf("after two lines: %+v", got)
	}
	d.http = true
	if got := d.ProgressWith(&runner.LoadCount{Done: 30, Failed: 5, Unit: "requests"}); got.Done != 3 ||
		got.Unit != "of 4 jobs finished, 30 /db requests" || got.Failed != 5 {
		t.Errorf("with the /db load: %+v", got)
	}
	d.Observe(record.TypeJobsProgress, []byte(`{"type":"jobs_progress","finished":"x"}`))
	if len(d.malformed) != 1 {
		t.Errorf("malformed progress line: %v", d.malformed)
	}
}
