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
	loadDrivers.register(scenarios.LoadAgent, func() loadDriver { return agentDriver{} })
}

// agentDriver is the load agent (cmd/loadagent, load.kind agent): closed or
// open loop HTTP load, one record per request and a closing summary that
// must account for them. Its lines are all agentStream's own.
type agentDriver struct{}

func (agentDriver) name() string { return "load agent" }

func (agentDriver) image(ctx context.Context, imgs imageSource) (string, error) {
	ref, err := imgs.Go(ctx, images.AgentImageName, images.AgentPackage)
	if err != nil {
		return "", fmt.Errorf("load agent image: %w", err)
	}
	return ref, nil
}

// args are the load agent's flags for the scenario's load.
func (agentDriver) args(v loadView) []string {
	l := v.scenario().Load
	args := []string{
		"-target", v.agentTarget(),
		"-shape", string(l.Shape),
		"-clients", strconv.Itoa(l.Clients),
		"-duration", l.Duration.String(),
		"-max-requests", strconv.Itoa(l.MaxRequests),
		"-timeout", l.Timeout.String(),
		"-drain", agentDrain.String(),
		"-fail-pause", l.FailPause.String(),
		"-stagger", l.StaggerSpan().String(),
		"-wait-ready", v.scenario().Target.Protocol.ReadyPath,
		"-wait-timeout", v.readyTimeout().String(),
		"-mix", mixFlag(l.Mix),
		"-id-prefix", fmt.Sprintf("r%d", v.runSeq()),
	}
	if j := l.Job; j != nil {
		// The agent sends the job request itself at load start + at, so
		// the action's timing relative to the job is exact.
		args = append(args, "-once", fmt.Sprintf("GET /job?steps=%d&step_ms=%d @%s", j.Steps, j.StepMS, j.At.D()))
	}
	if l.Shape == scenarios.ShapeOpen {
		args = append(args, "-rate", strconv.FormatFloat(l.Rate, 'f', -1, 64))
	}
	return args
}

func mixFlag(mix []scenarios.Request) string {
	s := ""
	for i, m := range mix {
		if i > 0 {
			s += "; "
		}
		s += fmt.Sprintf("%s %s %d %d", m.Method, m.Path, m.Weight, m.BodyBytes)
	}
	return s
}

// bound is the agent's duration plus its drain.
func (agentDriver) bound(spec scenarios.Spec) time.Duration {
	return spec.Load.Duration.D() + agentDrain
}

func (agentDriver) observe(string, []byte) {}

// check is the accounting rule: the summary exists and agrees with the
// request records that arrived (record.CheckAccounting).
func (agentDriver) check(s *agentStream) error {
	if err := s.checkAccounting(); err != nil {
		return fmt.Errorf("accounting: %w", err)
	}
	return nil
}

// collect keeps the agent's summary and the load's end.
func (agentDriver) collect(meta *record.Meta, s *agentStream) {
	if sum := s.Summary(); sum != nil {
		meta.Agent = sum
		meta.LoadEndNs = sum.LoadEnd
	}
}

// outcome is "N requests, M failed" from the summary.
func (agentDriver) outcome(m record.Meta) string {
	if m.Agent == nil {
		return ""
	}
	failed := 0
	for c, n := range m.Agent.ByClass {
		if c.Failed() {
			failed += n
		}
	}
	return fmt.Sprintf("%d requests, %d failed", m.Agent.Started, failed)
}
