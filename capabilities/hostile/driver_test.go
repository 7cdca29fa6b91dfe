package hostile

import (
	"context"
	"errors"
	"github.com/shutdownlab/shutdownlab/capabilities/captest"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// slowHeaders is C3's scenario (internal/runner's
// testdata/hostile/slow-headers.yaml, without its variants).
const slowHeaders = "name: t\nload:\n  kind: hostile\n  duration: 4s\n  timeout: 30s\n  hostile:\n    kind: slow_headers\n    max_attempts: 1\n"

func TestDriverArgs(t *testing.T) {
	tests := []struct {
		sets   []string
		want   []string // flag value pairs that must be there
		absent []string // flags that must not
	}{
		{nil, []string{"-target replica-0:8080", "-hostile slow_headers", "-hostile-bytes-per-s 1", "-hostile-body-bytes 0",
			"-clients 1", "-rate 0", "-max-requests 1", "-duration 4s", "-timeout 30s", "-hostile-path /slow?ms=0", "-id-prefix r1-h",
			"-drain 10s", "-wait-ready /readyz", "-wait-timeout 20s"},
			[]string{"-hostile-abort-after", "-mix", "-shape"}},
		{[]string{"load.hostile.kind=abort", "load.hostile.body_bytes=64", "load.hostile.reset=true", "load.hostile.hold=50ms"},
			[]string{"-hostile abort", "-hostile-body-bytes 64", "-hostile-abort-after 32", "-hostile-hold 50ms", "-hostile-reset=true"},
			[]string{"-hostile-bytes-per-s"}},
		{[]string{"load.hostile.kind=slow_body", "load.hostile.bytes_per_s=250", "load.hostile.clients=7", "load.hostile.attempts_per_s=3"},
			[]string{"-hostile slow_body", "-hostile-bytes-per-s 250", "-hostile-body-bytes 1000", "-clients 7", "-rate 3"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.sets, ","), func(t *testing.T) {
			sc, err := scenarios.Parse("t.yaml", []byte(slowHeaders))
			if err != nil {
				t.Fatal(err)
			}
			vs, err := sc.Expand(tt.sets)
			if err != nil {
				t.Fatal(err)
			}
			var d runner.LoadDriver = driver{}
			args := strings.Join(d.Args(captest.View{Spec: vs[0].Spec, Seq: 1}), " ")
			for _, w := range tt.want {
				if !strings.Contains(args, w) {
					t.Errorf("args %q lack %q", args, w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(args, a+" ") || strings.Contains(args, a+"=") {
					t.Errorf("args %q hold %q", args, a)
				}
			}
			if got := d.Bound(vs[0].Spec); got != 4*time.Second+runner.AgentDrain {
				t.Errorf("bound %v", got)
			}
		})
	}
}

// Check is the agent's accounting rule; Collect marks the run's kind and
// keeps the agent's summary; Outcome counts the attempts by class.
func TestDriverCollect(t *testing.T) {
	var d runner.LoadDriver = driver{}
	if d.Name() != "hostile clients" {
		t.Errorf("name %q", d.Name())
	}
	if ref, err := d.Image(context.Background(), captest.Images{}); err != nil || ref != images.AgentImageName+"@"+images.AgentPackage {
		t.Errorf("image %q, %v", ref, err)
	}
	if _, err := d.Image(context.Background(), captest.Images{Err: errors.New("no docker")}); err == nil || err.Error() != "load agent image: no docker" {
		t.Errorf("image error %v", err)
	}
	d.Observe("anything", nil) // every line is the agent's
	sum := &record.Summary{Type: record.TypeSummary, Started: 1, ByClass: map[record.Class]int{record.ClassAborted: 1}, LoadStart: 5, LoadEnd: 10, StoppedBy: "count"}
	var tally record.Tally
	tally.AddRequest(record.ClassAborted)
	if err := d.Check(&captest.Output{Sum: sum, Tally: tally}); err != nil {
		t.Fatalf("check: %v", err)
	}
	if err := d.Check(&captest.Output{Tally: tally}); err == nil || !strings.HasPrefix(err.Error(), "accounting: ") {
		t.Errorf("check without a summary: %v", err)
	}
	var m record.Meta
	d.Collect(&m, &captest.Output{Sum: sum})
	if m.LoadKind != record.LoadKindHostile || m.Agent != sum || m.LoadEndNs != 10 {
		t.Errorf("meta %+v", m)
	}
	if got := d.Outcome(m); got != "1 hostile attempts: aborted 1" {
		t.Errorf("outcome %q", got)
	}
	if got := d.Outcome(record.Meta{}); got != "" {
		t.Errorf("outcome without a summary %q", got)
	}
}
