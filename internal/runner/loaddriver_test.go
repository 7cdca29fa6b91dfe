package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestLoadDriverRegistry: every load kind has its driver and every
// driver its kind, "" is the load
// agent, and a kind without one is refused with its name.
func TestLoadDriverRegistry(t *testing.T) {
	for kind, want := range map[scenarios.LoadKind]string{"": "load agent", scenarios.LoadAgent: "load agent", scenarios.LoadKind(record.LoadKindProbe): "probe", scenarios.LoadKind(record.LoadKindWS): "ws agent", scenarios.LoadKind(record.LoadKindJobs): "job producer"} {
		d, err := newLoadDriver(kind)
		if err != nil || d.name() != want {
			t.Errorf("kind %q: driver %v, %v; want %q", kind, d, err, want)
		}
	}
	for _, kind := range scenarios.LoadKinds() {
		if _, ok := loadDrivers.lookup(kind); !ok {
			t.Errorf("load.kind %s: the scenarios accept it, no driver registered", kind)
		}
	}
	for _, kind := range loadDrivers.keys() {
		if !slices.Contains(scenarios.LoadKinds(), kind) {
			t.Errorf("a driver is registered for %q, which no scenario can name", kind)
		}
	}
	if _, err := newLoadDriver("carrier-pigeon"); err == nil || !strings.Contains(err.Error(), `load.kind "carrier-pigeon"`) {
		t.Errorf("unknown kind: %v", err)
	}
}

// TestLoadDriverArgs: each driver's container arguments for a scenario.
func TestLoadDriverArgs(t *testing.T) {
	tests := []struct {
		scenario string
		sets     []string
		want     []string // flag value pairs that must be there
		absent   []string // flags that must not
	}{
		{"direct-inflight", nil, []string{"-target replica-0:8080", "-shape closed", "-clients 20", "-mix GET /slow?ms=300 1 0", "-id-prefix r1"}, []string{"-rate", "-once"}},
		{"direct-inflight", []string{"load.shape=open", "load.rate=5"}, []string{"-shape open", "-rate 5"}, nil},
		{"stop-timeout-job", nil, []string{"-once GET /job?"}, nil},
		{"roll-behind-caddy", nil, []string{"-target proxy:"}, nil},
		{"ws-retire", nil, []string{"-target replica-0:8080", "-path /events", "-clients 200", "-policy full-jitter", "-base 200ms", "-cap 2s", "-duration 12s", "-ramp 1s", "-seed 2", "-wait-ready /readyz", "-raw-peers 5"}, []string{"-mix", "-double-schedule"}},
		{"ws-storm", []string{"load.ws.policy.kind=immediate", "load.ws.policy.double_schedule=true", "load.ws.raw_peers=3", "load.ws.seed=9"}, []string{"-target proxy:", "-policy immediate", "-double-schedule", "-raw-peers 3", "-seed 9", "-ramp 4s"}, []string{"-base", "-cap"}},
		{"p5-idle-socket", nil, []string{"-kind idle", "-target replica-0:8080", "-max-wait 15s", "-id r1-probe"}, []string{"-clients"}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario+strings.Join(tt.sets, ","), func(t *testing.T) {
			v := fakeVariant(t, tt.scenario, time.Second, tt.sets...)
			d, err := newLoadDriver(v.Spec.Load.Kind)
			if err != nil {
				t.Fatal(err)
			}
			x := &run{r: &Runner{seq: 1}, spec: v.Spec}
			args := strings.Join(d.args(x), " ")
			for _, w := range tt.want {
				if !strings.Contains(args, w) {
					t.Errorf("args %q lack %q", args, w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(args, a+" ") {
					t.Errorf("args %q hold %q", args, a)
				}
			}
		})
	}
}

// wsLine is the line type of testDriver, a load kind that is not built in.
const wsLine = "ws_test_conn"

// testDriver is a load kind with a line type of its own, as the next
// drivers will have: it counts its lines in Observe and accounts for them
// against the count its summary line ("ws_test_summary") claims.
type testDriver struct {
	agentDriver // image and args are not what this test is about
	mu          sync.Mutex
	conns       int
	claimed     int
}

func (d *testDriver) Name() string { return "ws test driver" }

func (d *testDriver) Observe(typ string, line []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch typ {
	case wsLine:
		d.conns++
	case "ws_test_summary":
		var sum struct{ Conns int }
		if json.Unmarshal(line, &sum) == nil {
			d.claimed = sum.Conns
		}
	}
}

func (d *testDriver) Check(LoadOutput) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conns != d.claimed {
		return fmt.Errorf("ws: summary says %d connections, %d lines arrived", d.claimed, d.conns)
	}
	return nil
}

func (d *testDriver) Collect(meta *record.Meta, _ LoadOutput) { meta.LoadKind = "ws-test" }

// TestNewLoadKind: a load kind registered with RegisterLoadDriver alone runs
// end to end: its own lines reach its Observe (and are kept in records.jsonl),
// and its accounting decides the run's validity.
func TestNewLoadKind(t *testing.T) {
	RegisterLoadDriver("ws-test", func() LoadDriver { return &testDriver{} })
	t.Cleanup(func() { delete(loadDrivers.entries, "ws-test") })
	for _, tt := range []struct {
		claimed int
		want    string
	}{{2, ""}, {3, "ws: summary says 3 connections, 2 lines arrived"}} {
		t.Run(fmt.Sprint("claimed ", tt.claimed), func(t *testing.T) {
			conn := `{"type":"` + wsLine + `","id":"c1"}`
			agent := fakeScript{stdout: []string{startLine, conn, conn}, exitAfter: 100 * time.Millisecond,
				final: []string{fmt.Sprintf(`{"type":"ws_test_summary","conns":%d}`, tt.claimed)}}
			f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "agent": agent})
			v := fakeVariant(t, "direct-inflight", 300*time.Millisecond)
			v.Spec.Load.Kind = "ws-test"
			v.Spec.Action.At = scenarios.Duration(20 * time.Millisecond)
			dir := filepath.Join(t.TempDir(), "run-001")
			m := newFakeRunner(t, f).runOnce(context.Background(), v, 1, dir)
			if m.Valid != (tt.want == "") || m.InvalidReason != tt.want || m.LoadKind != "ws-test" {
				t.Errorf("valid %v reason %q kind %q; want reason %q", m.Valid, m.InvalidReason, m.LoadKind, tt.want)
			}
		})
	}
}

// TestUnknownLoadKind: a kind without a driver makes the run invalid
// before anything starts, and the scenario fails before anything is
// written.
func TestUnknownLoadKind(t *testing.T) {
	f := newFakeEngine(nil)
	r := newFakeRunner(t, f)
	v := fakeVariant(t, "direct-inflight", time.Second)
	v.Spec.Load.Kind = "carrier-pigeon"
	m := r.runOnce(context.Background(), v, 1, t.TempDir())
	if m.Valid || !strings.Contains(m.InvalidReason, `load.kind "carrier-pigeon"`) || len(f.Calls()) > 0 {
		t.Errorf("valid %v reason %q calls %q; want invalid, nothing started", m.Valid, m.InvalidReason, f.Calls())
	}
	if err := r.prepareImages(context.Background(), []scenarios.Variant{v}); err == nil {
		t.Error("prepareImages accepted a kind without a driver")
	}
	if got := loadOutcome("carrier-pigeon", record.Meta{}); got != "" {
		t.Errorf("outcome of an unknown kind %q, want none", got)
	}
	if got := loadOutcome(record.LoadKindProbe, record.Meta{}.With(&record.ProbeResult{})); got != "probe line recorded" {
		t.Errorf("probe outcome %q", got)
	}
}
