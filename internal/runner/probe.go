package runner

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// isProbe reports whether a raw-socket probe drives this run (load.kind
// probe) instead of the load agent.
func (x *run) isProbe() bool { return x.spec.Load.Kind == scenarios.LoadProbe }

// loadName names what drives the load, for messages.
func (x *run) loadName() string {
	if x.isProbe() {
		return "probe"
	}
	return "load agent"
}

// port is the target's port: the image's declared protocol port (8080 for
// the built-in targets).
func (x *run) port() int {
	if p := x.spec.Target.Protocol.Port; p > 0 {
		return p
	}
	return targetPort
}

// loadBound is how long after its start line the load may run before it
// should have ended by itself: the agent's duration plus its drain; the
// probe's response timeout plus its wait for the socket to close.
func (x *run) loadBound() time.Duration {
	l := x.spec.Load
	if x.isProbe() {
		return l.Timeout.D() + l.Probe.MaxWait.D()
	}
	return l.Duration.D() + agentDrain
}

// probeArgs are cmd/probe's flags for the scenario's probe: one raw
// connection to replica 0, after the target's ready path answered 200 (on
// other connections). load.timeout bounds the response.
func (x *run) probeArgs() []string {
	p := x.spec.Load.Probe
	return []string{
		"-kind", string(p.Kind),
		"-target", x.agentTarget(),
		"-ms", strconv.Itoa(p.RequestMs()),
		"-max-wait", p.MaxWait.String(),
		"-timeout", x.spec.Load.Timeout.String(),
		"-wait-ready", x.spec.Target.Protocol.ReadyPath,
		"-wait-timeout", x.readyTimeout().String(),
		"-id", fmt.Sprintf("r%d-probe", x.r.seq),
	}
}
