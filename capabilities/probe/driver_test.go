package probe

import (
	"context"
	"errors"
	"github.com/shutdownlab/shutdownlab/capabilities/captest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestDriver: the probe's container, its arguments and bound, and what it
// makes of the run's output.
func TestDriver(t *testing.T) {
	var d runner.LoadDriver = driver{}
	v, err := scenarios.Find("p5-idle-socket")
	if err != nil {
		t.Fatal(err)
	}
	spec := v.Spec
	args := strings.Join(d.Args(captest.View{Spec: spec, Seq: 3}), " ")
	for _, want := range []string{"-kind idle", "-target replica-0:8080", "-max-wait 15s", "-id r3-probe", "-wait-timeout 20s", "-wait-ready /readyz"} {
		if !strings.Contains(args, want) {
			t.Errorf("args %q: want %q", args, want)
		}
	}
	if got, want := d.Bound(spec), spec.Load.Timeout.D()+15*time.Second; got != want {
		t.Errorf("bound %v, want %v", got, want)
	}
	if ref, err := d.Image(context.Background(), captest.Images{}); err != nil || ref != images.ProbeImageName+"@"+images.ProbePackage {
		t.Errorf("image %q, %v", ref, err)
	}
	if _, err := d.Image(context.Background(), captest.Images{Err: errors.New("no docker")}); err == nil || !strings.Contains(err.Error(), "probe image: no docker") {
		t.Errorf("image error %v", err)
	}
	d.Observe("anything", nil) // the stream keeps the probe line itself

	line := &record.ProbeResult{Kind: record.ProbeIdle}
	if err := d.Check(&captest.Output{Lines: map[string]any{record.TypeProbe: line}, Tally: record.Tally{Probes: 1}}); err != nil {
		t.Errorf("one probe line: %v", err)
	}
	if err := d.Check(&captest.Output{Tally: record.Tally{Probes: 2}}); err == nil || !strings.HasPrefix(err.Error(), "probe: 2 probe lines") {
		t.Errorf("two probe lines: %v", err)
	}
	var m record.Meta
	d.Collect(&m, &captest.Output{Lines: map[string]any{record.TypeProbe: line}})
	if m.LoadKind != record.LoadKindProbe || m.Probe() != line || d.Outcome(m) != "probe line recorded" {
		t.Errorf("collected %+v, outcome %q", m, d.Outcome(m))
	}
	var none record.Meta
	d.Collect(&none, &captest.Output{})
	if none.Probe() != nil || d.Outcome(none) != "no probe line" {
		t.Errorf("without a line: %+v, outcome %q", none, d.Outcome(none))
	}
	if d.Name() != "probe" || !slices.Contains(scenarios.LoadKinds(), LoadKind) {
		t.Errorf("name %q, kinds %v", d.Name(), scenarios.LoadKinds())
	}
}
