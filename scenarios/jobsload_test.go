package scenarios

import (
	"slices"
	"testing"
	"time"
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
			if got := errLines(t, tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("errors\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

// TestJobsDefaults: an omitted field takes its documented default.
func TestJobsDefaults(t *testing.T) {
	sc, err := parse("t.yaml", []byte("name: t\nload:\n  kind: jobs\n  jobs: {count: 4}\n"))
	if err != nil {
		t.Fatal(err)
	}
	j := sc.Spec.Load.Jobs()
	want := JobsLoad{Count: 4, Steps: 1, StepMS: 1000, HTTPMS: DefaultJobsHTTPMS}
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
		j := JobsLoad{Count: tt.count, Rate: tt.rate}
		if got := j.InsertSpan(); got != tt.want {
			t.Errorf("count %d rate %v: %s, want %s", tt.count, tt.rate, got, tt.want)
		}
	}
}

// TestAgainValidation pins the errors of action.again.
func TestAgainValidation(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"signal again", "name: t\naction: {kind: signal, again: 2s}\n", nil},
		{"stop again", "name: t\naction: {kind: stop, grace_period: 10s, again: 1s}\n", nil},
		{"roll", "name: t\ntopology: caddy\naction:\n  kind: roll\n  again: 1s\n",
			[]string{`t.yaml:5: action.again: "1s": only with action kind signal or stop (kind is roll)`}},
		{"none", "name: t\naction:\n  kind: none\n  again: 1s\n",
			[]string{`t.yaml:4: action.again: "1s": only with action kind signal or stop (kind is none)`}},
		{"after SIGKILL", "name: t\naction:\n  stop_signal: SIGKILL\n  again: 1s\n",
			[]string{`t.yaml:4: action.again: "1s": not after SIGKILL (nothing is left to signal)`}},
		{"zero", "name: t\naction:\n  again: 0s\n", []string{`t.yaml:3: action.again: "0s": must be > 0`}},
		{"past the window", "name: t\naction:\n  again: 10s\nobserve: {window: 10s}\n",
			[]string{`t.yaml:3: action.again: "10s": must be less than observe.window (10s), so the window still watches the replica when it arrives`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errLines(t, tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("errors\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}
