package hostile

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

// driver is hostile clients as the runner drives them: the load agent
// with -hostile KIND (loadgen.RunHostile) trickling requests or aborting
// them mid-body. Its lines are the agent's own (start, req with hostile
// set, summary), which the runner's stream keeps, and its accounting rule
// is the agent's (record.CheckAccounting).
type driver struct{}

var _ runner.LoadDriver = driver{}

// Name names the load in messages.
func (driver) Name() string { return "hostile clients" }

// Image is the load agent's image.
func (driver) Image(ctx context.Context, imgs runner.ImageSource) (string, error) {
	return runner.GoImage(ctx, imgs, "load agent", images.AgentImageName, images.AgentPackage)
}

// Args are the agent's flags for load.hostile: load.duration is how long
// attempts start, load.timeout bounds each, the agent's drain cuts the
// last ones off.
func (driver) Args(v runner.LoadView) []string {
	l := v.Scenario().Load
	h := LoadOf(l)
	args := []string{
		"-target", v.AgentTarget(),
		"-hostile", h.Kind,
		"-hostile-method", h.Method,
		"-hostile-path", h.Path,
		"-hostile-body-bytes", strconv.Itoa(h.Body()),
		"-clients", strconv.Itoa(h.Clients),
		"-rate", strconv.FormatFloat(h.AttemptsPerS, 'f', -1, 64),
		"-duration", l.Duration.String(),
		"-max-requests", strconv.Itoa(h.MaxAttempts),
		"-timeout", l.Timeout.String(),
		"-drain", runner.AgentDrain.String(),
		"-wait-ready", v.Scenario().Target.Protocol.ReadyPath,
		"-wait-timeout", v.ReadyTimeout().String(),
		"-id-prefix", fmt.Sprintf("r%d-h", v.RunSeq()),
	}
	if h.Kind == Abort {
		return append(args, "-hostile-abort-after", strconv.Itoa(h.AbortBytes()),
			"-hostile-hold", h.Hold.String(), "-hostile-reset="+strconv.FormatBool(h.Reset))
	}
	return append(args, "-hostile-bytes-per-s", strconv.FormatFloat(h.Rate(), 'f', -1, 64))
}

// Bound is the load's duration plus the agent's drain: an attempt still
// running then is cut off as timeout ("agent stopping").
func (driver) Bound(spec scenarios.Spec) time.Duration {
	return spec.Load.Duration.D() + runner.AgentDrain
}

// Observe takes no line: every line is the agent's, kept by the stream.
func (driver) Observe(string, []byte) {}

// Check is the agent's accounting rule: the summary exists and agrees
// with the request records that arrived (record.CheckAccounting).
func (driver) Check(out runner.LoadOutput) error {
	sum := out.Summary()
	if err := out.Account(func(t *record.Tally) []error { return record.CheckAccounting(sum, t) }); err != nil {
		return fmt.Errorf("accounting: %w", err)
	}
	return nil
}

// Collect keeps the agent's summary and the load's end, and marks the
// kind.
func (driver) Collect(meta *record.Meta, out runner.LoadOutput) {
	if sum := out.Summary(); sum != nil {
		meta.Agent = sum
		meta.LoadEndNs = sum.LoadEnd
	}
	meta.LoadKind = record.LoadKindHostile
}

// Outcome is "N hostile attempts: C class, ..." from the summary.
func (driver) Outcome(m record.Meta) string {
	if m.Agent == nil {
		return ""
	}
	s := fmt.Sprintf("%d hostile attempts:", m.Agent.Started)
	for _, c := range record.Classes {
		if n := m.Agent.ByClass[c]; n > 0 {
			s += fmt.Sprintf(" %s %d", c, n)
		}
	}
	return s
}
