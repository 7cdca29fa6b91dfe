package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

func TestHostileDriverArgs(t *testing.T) {
	tests := []struct {
		sets   []string
		want   []string // flag value pairs that must be there
		absent []string // flags that must not
	}{
		{nil, []string{"-target replica-0:8080", "-hostile slow_headers", "-hostile-bytes-per-s 1", "-hostile-body-bytes 0",
			"-clients 1", "-rate 0", "-max-requests 1", "-duration 4s", "-timeout 30s", "-hostile-path /slow?ms=0", "-id-prefix r1-h"},
			[]string{"-hostile-abort-after", "-mix", "-shape"}},
		{[]string{"load.hostile.kind=abort", "load.hostile.body_bytes=64", "load.hostile.reset=true", "load.hostile.hold=50ms"},
			[]string{"-hostile abort", "-hostile-body-bytes 64", "-hostile-abort-after 32", "-hostile-hold 50ms", "-hostile-reset=true"},
			[]string{"-hostile-bytes-per-s"}},
		{[]string{"load.hostile.kind=slow_body", "load.hostile.bytes_per_s=250", "load.hostile.clients=7", "load.hostile.attempts_per_s=3"},
			[]string{"-hostile slow_body", "-hostile-bytes-per-s 250", "-hostile-body-bytes 1000", "-clients 7", "-rate 3"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.sets, ","), func(t *testing.T) {
			v := fakeVariant(t, "testdata/hostile/slow-headers.yaml", time.Second, tt.sets...)
			d, err := newLoadDriver(v.Spec.Load.Kind)
			if err != nil {
				t.Fatal(err)
			}
			if d.name() != "hostile clients" {
				t.Fatalf("driver %q for load.kind %q", d.name(), v.Spec.Load.Kind)
			}
			x := &run{r: &Runner{seq: 1}, spec: v.Spec}
			args := strings.Join(d.args(x), " ")
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
		})
	}
}

// collect marks the run's kind and keeps the agent's summary; outcome
// counts the attempts by class.
func TestHostileDriverCollect(t *testing.T) {
	s := newAgentStream()
	s.line([]byte(`{"type":"start","load_start_ns":5}`))
	s.line([]byte(`{"type":"req","id":"h-1","start_ns":6,"end_ns":9,"class":"aborted","hostile":"abort"}`))
	s.line([]byte(`{"type":"summary","started":1,"by_class":{"aborted":1},"load_start_ns":5,"load_end_ns":10,"stopped_by":"count"}`))
	d := hostileDriver{}
	if err := d.check(s); err != nil {
		t.Fatalf("check: %v", err)
	}
	var m record.Meta
	d.collect(&m, s)
	if m.LoadKind != record.LoadKindHostile || m.Agent == nil || m.LoadEndNs != 10 {
		t.Errorf("meta %+v", m)
	}
	if got := d.outcome(m); got != "1 hostile attempts: aborted 1" {
		t.Errorf("outcome %q", got)
	}
}
