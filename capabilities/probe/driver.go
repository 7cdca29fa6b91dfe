package probe

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// driver is the raw-socket probe as the runner drives it (cmd/probe,
// load.kind probe): one connection, one request, the socket watched until
// the server closes it, and exactly one probe line (the runner's stream
// keeps it: report's accounting rule counts it too).
type driver struct{}

var _ runner.LoadDriver = driver{}

// Name names the load in messages.
func (driver) Name() string { return "probe" }

// Image is the probe's image, built from cmd/probe.
func (driver) Image(ctx context.Context, imgs runner.ImageSource) (string, error) {
	return runner.GoImage(ctx, imgs, "probe", images.ProbeImageName, images.ProbePackage)
}

// Args are cmd/probe's flags for the scenario's probe: one raw connection
// to replica 0, after the target's ready path answered 200 (on other
// connections). load.timeout bounds the response.
func (driver) Args(v runner.LoadView) []string {
	p := LoadOf(v.Scenario().Load)
	return []string{
		"-kind", string(p.Kind),
		"-target", v.AgentTarget(),
		"-ms", strconv.Itoa(p.RequestMs()),
		"-max-wait", p.MaxWait.String(),
		"-timeout", v.Scenario().Load.Timeout.String(),
		"-wait-ready", v.Scenario().Target.Protocol.ReadyPath,
		"-wait-timeout", v.ReadyTimeout().String(),
		"-id", fmt.Sprintf("r%d-probe", v.RunSeq()),
	}
}

// Bound is the probe's response timeout plus its wait for the socket to
// close.
func (driver) Bound(spec scenarios.Spec) time.Duration {
	return spec.Load.Timeout.D() + LoadOf(spec.Load).MaxWait.D()
}

// Observe takes no line: the runner's stream keeps the probe line
// itself (LoadOutput.Last).
func (driver) Observe(string, []byte) {}

// Check: exactly one probe line, no request line, nothing malformed
// (record.CheckProbeAccounting).
func (driver) Check(out runner.LoadOutput) error {
	if err := out.Account(record.CheckProbeAccounting); err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	return nil
}

// Collect records the kind and the probe's line.
func (driver) Collect(meta *record.Meta, out runner.LoadOutput) {
	meta.LoadKind = record.LoadKindProbe
	if line, _ := out.Last(record.TypeProbe).(*record.ProbeResult); line != nil {
		meta.SetPart(line)
	}
}

// Outcome says whether the run recorded the probe's line.
func (driver) Outcome(m record.Meta) string {
	if m.Probe() == nil {
		return "no probe line"
	}
	return "probe line recorded"
}
