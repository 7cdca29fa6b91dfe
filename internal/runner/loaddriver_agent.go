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
	RegisterLoadDriver(scenarios.LoadAgent, func() LoadDriver { return agentDriver{} })
}

// agentDriver is the load agent (cmd/loadagent, load.kind agent): closed or
// open loop HTTP load, one record per request and a closing summary that
// must account for them. Its lines are all agentStream's own.
type agentDriver struct{}

func (agentDriver) Name() string { return "load agent" }

func (agentDriver) Image(ctx context.Context, imgs ImageSource) (string, error) {
	return GoImage(ctx, imgs, "load agent", images.AgentImageName, images.AgentPackage)
}

// Args are the load agent's flags for the scenario's load.
func (agentDriver) Args(v LoadView) []string {
	l := v.Scenario().Load
	args := []string{
		"-target", v.AgentTarget(),
		"-shape", string(l.Shape),
		"-clients", strconv.Itoa(l.Clients),
		"-duration", l.Duration.String(),
		"-max-requests", strconv.Itoa(l.MaxRequests),
		"-timeout", l.Timeout.String(),
		"-drain", agentDrain.String(),
		"-fail-pause", l.FailPause.String(),
		"-stagger", l.StaggerSpan().String(),
		"-wait-ready", v.Scenario().Target.Protocol.ReadyPath,
		"-wait-timeout", v.ReadyTimeout().String(),
		"-mix", mixFlag(l.Mix),
		"-id-prefix", fmt.Sprintf("r%d", v.RunSeq()),
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

// Bound is the agent's duration plus its drain.
func (agentDriver) Bound(spec scenarios.Spec) time.Duration {
	return spec.Load.Duration.D() + agentDrain
}

// Observe has nothing to do: every line of the agent is the stream's own.
func (agentDriver) Observe(string, []byte) {}

// Check is the accounting rule: the summary exists and agrees with the
// request records that arrived (record.CheckAccounting).
func (agentDriver) Check(out LoadOutput) error {
	sum := out.Summary()
	if err := out.Account(func(t *record.Tally) []error { return record.CheckAccounting(sum, t) }); err != nil {
		return fmt.Errorf("accounting: %w", err)
	}
	return nil
}

// Collect keeps the agent's summary and the load's end.
func (agentDriver) Collect(meta *record.Meta, out LoadOutput) {
	if sum := out.Summary(); sum != nil {
		meta.Agent = sum
		meta.LoadEndNs = sum.LoadEnd
	}
}

// Outcome is "N requests, M failed" from the summary.
func (agentDriver) Outcome(m record.Meta) string {
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
