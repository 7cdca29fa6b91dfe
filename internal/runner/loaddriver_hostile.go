package runner

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Registers this file's load kind with the runner (registry.go).
func init() {
	loadDrivers.register(scenarios.LoadHostile, func() loadDriver { return hostileDriver{} })
}

// hostileDriver is hostile clients (load.kind hostile): the load agent
// with -hostile KIND (loadgen.RunHostile) trickling requests or aborting
// them mid-body. Its lines are the agent's own (start, req with hostile
// set, summary), so agentStream keeps them and the accounting rule is the
// agent's: image, observe and check are agentDriver's.
type hostileDriver struct{ agentDriver }

func (hostileDriver) name() string { return "hostile clients" }

// args are the agent's flags for load.hostile: load.duration is how long
// attempts start, load.timeout bounds each, the agent's drain cuts the
// last ones off.
func (hostileDriver) args(v loadView) []string {
	l := v.scenario().Load
	h := l.Hostile()
	args := []string{
		"-target", v.agentTarget(),
		"-hostile", h.Kind,
		"-hostile-method", h.Method,
		"-hostile-path", h.Path,
		"-hostile-body-bytes", strconv.Itoa(h.Body()),
		"-clients", strconv.Itoa(h.Clients),
		"-rate", strconv.FormatFloat(h.AttemptsPerS, 'f', -1, 64),
		"-duration", l.Duration.String(),
		"-max-requests", strconv.Itoa(h.MaxAttempts),
		"-timeout", l.Timeout.String(),
		"-drain", agentDrain.String(),
		"-wait-ready", v.scenario().Target.Protocol.ReadyPath,
		"-wait-timeout", v.readyTimeout().String(),
		"-id-prefix", fmt.Sprintf("r%d-h", v.runSeq()),
	}
	if h.Kind == scenarios.HostileAbort {
		return append(args, "-hostile-abort-after", strconv.Itoa(h.AbortBytes()),
			"-hostile-hold", h.Hold.String(), "-hostile-reset="+strconv.FormatBool(h.Reset))
	}
	return append(args, "-hostile-bytes-per-s", strconv.FormatFloat(h.Rate(), 'f', -1, 64))
}

// bound is the load's duration plus the agent's drain: an attempt still
// running then is cut off as timeout ("agent stopping").
func (hostileDriver) bound(spec scenarios.Spec) time.Duration {
	return spec.Load.Duration.D() + agentDrain
}

// collect keeps the summary and the load's end, and marks the kind.
func (d hostileDriver) collect(meta *record.Meta, s *agentStream) {
	d.agentDriver.collect(meta, s)
	meta.LoadKind = record.LoadKindHostile
}

// outcome is "N hostile attempts: C class, ..." from the summary.
func (hostileDriver) outcome(m record.Meta) string {
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
