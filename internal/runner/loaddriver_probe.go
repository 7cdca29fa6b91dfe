package runner

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Registers this file's load kind with the runner (registry.go).
func init() {
	loadDrivers.register(scenarios.LoadProbe, func() loadDriver { return probeDriver{} })
}

// probeDriver is the raw-socket probe (cmd/probe, load.kind probe): one
// connection, one request, the socket watched until the server closes it,
// and exactly one probe line (agentStream keeps it: report's accounting
// rule counts it too).
type probeDriver struct{}

func (probeDriver) name() string { return "probe" }

func (probeDriver) image(ctx context.Context, imgs imageSource) (string, error) {
	ref, err := imgs.Go(ctx, images.ProbeImageName, images.ProbePackage)
	if err != nil {
		return "", fmt.Errorf("probe image: %w", err)
	}
	return ref, nil
}

// args are cmd/probe's flags for the scenario's probe: one raw connection
// to replica 0, after the target's ready path answered 200 (on other
// connections). load.timeout bounds the response.
func (probeDriver) args(v loadView) []string {
	p := v.scenario().Load.Probe()
	return []string{
		"-kind", string(p.Kind),
		"-target", v.agentTarget(),
		"-ms", strconv.Itoa(p.RequestMs()),
		"-max-wait", p.MaxWait.String(),
		"-timeout", v.scenario().Load.Timeout.String(),
		"-wait-ready", v.scenario().Target.Protocol.ReadyPath,
		"-wait-timeout", v.readyTimeout().String(),
		"-id", fmt.Sprintf("r%d-probe", v.runSeq()),
	}
}

// bound is the probe's response timeout plus its wait for the socket to
// close.
func (probeDriver) bound(spec scenarios.Spec) time.Duration {
	return spec.Load.Timeout.D() + spec.Load.Probe().MaxWait.D()
}

func (probeDriver) observe(string, []byte) {}

// check: exactly one probe line, no request line, nothing malformed
// (record.CheckProbeAccounting).
func (probeDriver) check(s *agentStream) error {
	if err := s.checkProbe(); err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	return nil
}

// collect records the kind and the probe's line.
func (probeDriver) collect(meta *record.Meta, s *agentStream) {
	meta.LoadKind = record.LoadKindProbe
	if line, _ := s.Probe(); line != nil {
		meta.SetPart(line)
	}
}

func (probeDriver) outcome(m record.Meta) string {
	if m.Probe() == nil {
		return "no probe line"
	}
	return "probe line recorded"
}
