package queuejobs

import (
	"encoding/json"
	"github.com/shutdownlab/shutdownlab/capabilities/captest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestJobsValidation pins the errors of load.kind jobs and action.again:
// each names its file, line, field and value.
func TestJobsValidation(t *testing.T) {
	head := "name: t\nload:\n  kind: jobs\n"
	tests := []struct {
		name string
		src  string
		want []string // every error, in order; nil: valid
	}{
		{"batch, defaults", head + "  jobs: {count: 6}\n", nil},
		{"every field", head + "  duration: 20s\n  jobs: {count: 6, rate: 2, steps: 4, step_ms: 250, idempotent: true, http_clients: 5, http_ms: 100}\n", nil},
		{"no block", head, []string{"t.yaml:2: load.jobs: required for load.kind jobs (count, steps, step_ms, ...)"}},
		{"count missing", head + "  jobs: {steps: 2}\n", []string{`t.yaml:4: load.jobs.count: "0": must be 1..10000`}},
		{"count too large", head + "  jobs:\n    count: 10001\n", []string{`t.yaml:5: load.jobs.count: "10001": must be 1..10000`}},
		{"negative rate", head + "  jobs:\n    count: 3\n    rate: -1\n", []string{`t.yaml:6: load.jobs.rate: "-1": must be 0..10000 jobs per second (0: one batch at load start)`}},
		{"inserts longer than the load", head + "  duration: 6s\n  jobs:\n    count: 13\n    rate: 2\n",
			[]string{`t.yaml:7: load.jobs.rate: "2": 13 jobs at this rate take 6s to insert, not within load.duration (6s)`}},
		{"steps", head + "  jobs:\n    count: 3\n    steps: 0\n", []string{`t.yaml:6: load.jobs.steps: "0": must be 1..1000`}},
		{"step_ms", head + "  jobs:\n    count: 3\n    step_ms: 600001\n", []string{`t.yaml:6: load.jobs.step_ms: "600001": must be 0..600000`}},
		{"http clients", head + "  jobs:\n    count: 3\n    http_clients: 201\n", []string{`t.yaml:6: load.jobs.http_clients: "201": must be 0..200 (0: no HTTP load)`}},
		{"http_ms", head + "  jobs:\n    count: 3\n    http_clients: 1\n    http_ms: -5\n", []string{`t.yaml:7: load.jobs.http_ms: "-5": must be 0..600000`}},
		{"http_ms without clients", head + "  jobs:\n    count: 3\n    http_ms: 50\n", []string{`t.yaml:6: load.jobs.http_ms: "50": only with http_clients > 0`}},
		{"node target", "name: t\ntarget: {runtime: node}\n" + head[len("name: t\n"):] + "  jobs: {count: 3}\n",
			[]string{`t.yaml:2: target.runtime: "node": load.kind jobs needs runtime go (the queue worker is the Go target's WORKER role)`}},
		{"an image", "name: t\ntarget:\n  image: my/app:1\n  protocol: {paths: [/slow]}\n" + head[len("name: t\n"):] + "  jobs: {count: 3}\n",
			[]string{`t.yaml:3: target.image: "my/app:1": not with load.kind jobs (the queue worker is the built-in Go target's WORKER role)`}},
		{"agent fields", head + "  clients: 3\n  jobs: {count: 3}\n", []string{"t.yaml:4: load.clients: only for load.kind agent (a jobs load is configured in load.jobs)"}},
		{"quiet", head + "  duration: 20s\n  jobs: {count: 3, step_ms: 500, quiet: 2s}\n", nil},
		{"quiet within a step", head + "  jobs:\n    count: 3\n    step_ms: 1000\n    quiet: 1s\n",
			[]string{`t.yaml:7: load.jobs.quiet: "1s": must exceed a step (step_ms 1000): a job inside one step does not move`}},
		{"quiet beyond the load", head + "  duration: 6s\n  jobs:\n    count: 3\n    quiet: 6s\n",
			[]string{`t.yaml:7: load.jobs.quiet: "6s": must be shorter than load.duration (6s)`}},
		{"quiet zero", head + "  jobs:\n    count: 3\n    quiet: 0s\n",
			[]string{`t.yaml:6: load.jobs.quiet: "0s": must be > 0 (leave it out to wait for every job to settle)`}},
		{"block for another kind", "name: t\nload:\n  jobs: {count: 3}\n", []string{"t.yaml:3: load.jobs: only for load.kind jobs"}},
		{"unknown field", head + "  jobs: {count: 3, workers: 2}\n", []string{"t.yaml:4: load.jobs.workers: unknown field (want one of: count, rate, steps, step_ms, idempotent, http_clients, http_ms, quiet)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := captest.ErrLines(t, tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("errors\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

// TestJobsDefaults: an omitted field takes its documented default.
func TestJobsDefaults(t *testing.T) {
	sc, err := scenarios.Parse("t.yaml", []byte("name: t\nload:\n  kind: jobs\n  jobs: {count: 4}\n"))
	if err != nil {
		t.Fatal(err)
	}
	j := LoadOf(sc.Spec.Load)
	want := Load{Count: 4, Steps: 1, StepMS: 1000, HTTPMS: DefaultHTTPMS}
	if *j != want || j.InsertSpan() != 0 {
		t.Errorf("defaults %+v (insert span %s), want %+v", *j, j.InsertSpan(), want)
	}
}

// TestInsertSpan: the last of count jobs goes in (count-1)/rate after
// load start.
func TestInsertSpan(t *testing.T) {
	for _, tt := range []struct {
		count int
		rate  float64
		want  time.Duration
	}{{1, 5, 0}, {6, 0, 0}, {6, 2, 2500 * time.Millisecond}, {11, 10, time.Second}} {
		j := Load{Count: tt.count, Rate: tt.rate}
		if got := j.InsertSpan(); got != tt.want {
			t.Errorf("count %d rate %v: %s, want %s", tt.count, tt.rate, got, tt.want)
		}
	}
}

// TestLoadBlockJSON: the block is written as the key load.jobs after the
// load's fields, as the field it once was, and read back (moved from
// package scenarios with the block).
func TestLoadBlockJSON(t *testing.T) {
	l := scenarios.LoadSpec{Shape: scenarios.ShapeClosed, Clients: 2, Kind: LoadKind}
	l.SetBlock(&Load{Count: 4, Steps: 2})
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.HasPrefix(s, `{"shape":"closed","clients":2,`) || !strings.Contains(s, `"kind":"jobs","jobs":{"count":4,`) || !strings.HasSuffix(s, "}}") {
		t.Errorf("marshalled: %s", s)
	}
	var back scenarios.LoadSpec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Kind != LoadKind || LoadOf(back) == nil || LoadOf(back).Count != 4 {
		t.Errorf("read back: %+v, jobs %+v", back, LoadOf(back))
	}
	if again, _ := json.Marshal(back); string(again) != s {
		t.Errorf("round trip:\n%s\n%s", again, s)
	}
}

// TestLoadKindProperties: what the shared checks ask of the kind, and
// the kind spelled as record's.
func TestLoadKindProperties(t *testing.T) {
	if string(LoadKind) != record.LoadKindJobs || !slices.Contains(scenarios.LoadKinds(), LoadKind) {
		t.Errorf("load kinds %v: want %q registered", scenarios.LoadKinds(), record.LoadKindJobs)
	}
	d, _ := scenarios.LoadKindOf(LoadKind)
	if d.Runtime != scenarios.RuntimeGo || d.Work == nil {
		t.Errorf("registration %+v: want Go only, with work to audit", d)
	}
	l := scenarios.LoadSpec{Kind: LoadKind}
	if w := work(l); w != (scenarios.ShutdownWork{}) {
		t.Errorf("work without a block %+v", w)
	}
	l.SetBlock(&Load{Count: 1, Steps: 3, StepMS: 20, HTTPMS: 50})
	if w := work(l); w != (scenarios.ShutdownWork{Steps: 3, StepMS: 20}) {
		t.Errorf("work without HTTP clients %+v", w)
	}
	LoadOf(l).HTTPClients = 1
	if w := work(l); w != (scenarios.ShutdownWork{Steps: 3, StepMS: 20, HTTPMS: 50}) {
		t.Errorf("work with HTTP clients %+v", w)
	}
}
