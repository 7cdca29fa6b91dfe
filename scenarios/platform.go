package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Platform is what places the target replicas.
type Platform string

// The platforms.
const (
	// PlatformDirect: the harness starts each replica as a container
	// itself (default; "" means direct).
	PlatformDirect Platform = "direct"
	// PlatformSwarm: the replicas are the tasks of a Docker Swarm service
	// on an attachable overlay network; the load agent (and Caddy, for
	// topology caddy) join that network as ordinary containers.
	PlatformSwarm Platform = "swarm"
)

// (PlatformKubernetes and its block are in kubernetes.go.)

// ActionRollout rolls every replica of a Swarm service (docker service
// update) under Action.Rollout. Platform swarm only.
const ActionRollout ActionKind = "rollout"

// Swarm configures platform swarm.
type Swarm struct {
	// EndpointMode is dnsrr (default: the service name and
	// tasks.<service> resolve to the task addresses) or vip (one virtual
	// IP balanced by IPVS; does not answer on this machine, untested).
	EndpointMode string `yaml:"endpoint_mode" json:"endpoint_mode"`
	// Constraints are the tasks' placement constraints
	// ("node.role==worker", "node.hostname==n2"); none by default.
	Constraints []string `yaml:"constraints" json:"constraints,omitempty"`
	// AgentNode is the node the load agent and Caddy run on, by hostname:
	// they are ordinary containers, started on the engine the harness
	// talks to, so this must be that engine's node ("" or "local": the
	// engine's own node, whatever its name). A run on another node is
	// refused, not silently moved.
	AgentNode string `yaml:"agent_node" json:"agent_node,omitempty"`
	// DNSRefresh is how often Caddy re-resolves tasks.<service> for its
	// dynamic upstreams (topology caddy; default 1s).
	DNSRefresh Duration `yaml:"dns_refresh" json:"dns_refresh"`
}

func (*Swarm) platform() Platform { return PlatformSwarm }

// Swarm returns the spec's swarm block (the top-level key swarm), nil
// without one.
func (s Spec) Swarm() *Swarm { return blockOf[*Swarm](s.blocks, PlatformSwarm) }

// Rollout configures an action of kind rollout: the service's update
// policy, and the stop settings and health check its tasks are created
// with (Swarm stops an old task with the settings it was created with).
type Rollout struct {
	// Parallelism is how many tasks are replaced at once, 0..16 (default
	// 1; 0 replaces all at once).
	Parallelism int `yaml:"parallelism" json:"parallelism"`
	// Delay is the pause between two batches, 0..1m (default 0s).
	Delay Duration `yaml:"delay" json:"delay"`
	// Order is stop-first (default, Swarm's) or start-first.
	Order string `yaml:"order" json:"order"`
	// StopGracePeriod is the grace period, the time from the stop signal
	// to SIGKILL (key grace_period; stop_grace_period is its deprecated
	// name and its JSON name), 0..10m (default 10s, Swarm's).
	StopGracePeriod Duration `yaml:"grace_period" json:"stop_grace_period"`
	// StopSignal is the tasks' stop signal (default SIGTERM).
	StopSignal string `yaml:"stop_signal" json:"stop_signal"`
	// FailureAction is pause (default), continue or rollback.
	FailureAction string `yaml:"failure_action" json:"failure_action"`
	// Monitor is how long Swarm watches each new task for failure before
	// the next batch, 0..1m (default 1s; Swarm's own default is 5s).
	Monitor Duration `yaml:"monitor" json:"monitor"`
	// Image, when set, is the new tasks' image (a local image); by
	// default the update is forced: same spec, new tasks.
	Image string `yaml:"image" json:"image,omitempty"`
	// Healthcheck is the tasks' Docker HEALTHCHECK.
	Healthcheck Healthcheck `yaml:"healthcheck" json:"healthcheck"`
	// Timeout bounds the wait for the rollout to converge, 1s..10m
	// (default 2m); a rollout that has not converged by then makes the
	// run invalid.
	Timeout Duration `yaml:"timeout" json:"timeout"`
}

func init() {
	registerActionBlock(ActionRollout, actionBlockDef{key: "rollout", newBlock: func() ActionBlock { return new(Rollout) },
		normalize: normalizeRollout, validate: validateRollout})
}

func (*Rollout) actionKind() ActionKind { return ActionRollout }

// Rollout returns the action's rollout block (action.rollout), nil
// without one.
func (a Action) Rollout() *Rollout { return blockOf[*Rollout](a.blocks, ActionRollout) }

// The health checks (action.rollout.healthcheck.check): which of the
// target's endpoints the check GETs.
const (
	// CheckReadiness checks the target's ready path (/readyz): a draining
	// task turns unhealthy.
	CheckReadiness = "readiness"
	// CheckLiveness checks /livez: healthy while the process lives.
	CheckLiveness = "liveness"
	// CheckNone sets no health check.
	CheckNone = "none"
)

// Healthcheck is a Docker HEALTHCHECK run by the target binary itself
// (`/app health PATH`), so the FROM-scratch images can have one.
type Healthcheck struct {
	// Check is which endpoint the check GETs: readiness (default),
	// liveness or none (key check; probe is its deprecated name and its
	// JSON name).
	Check string `yaml:"check" json:"probe"`
	// Interval between two checks, 100ms..1m (default 1s).
	Interval Duration `yaml:"interval" json:"interval"`
	// Retries failed checks in a row make a task unhealthy; Swarm then
	// replaces it. 1..100 (default 3).
	Retries int `yaml:"retries" json:"retries"`
}

// DefaultSwarm is the swarm block's defaults.
func DefaultSwarm() Swarm { return Swarm{EndpointMode: "dnsrr", DNSRefresh: Seconds(1)} }

// DefaultRollout is the rollout block's defaults.
func DefaultRollout() Rollout {
	return Rollout{Parallelism: 1, Order: "stop-first", StopGracePeriod: Seconds(10), StopSignal: "SIGTERM",
		FailureAction: "pause", Monitor: Seconds(1), Healthcheck: DefaultHealthcheck(), Timeout: Duration(2 * time.Minute)}
}

// DefaultHealthcheck is the health check's defaults.
func DefaultHealthcheck() Healthcheck {
	return Healthcheck{Check: CheckReadiness, Interval: Seconds(1), Retries: 3}
}

// UnmarshalYAML decodes a swarm block onto its defaults.
func (s *Swarm) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Swarm
	*s = DefaultSwarm()
	return unmarshal((*plain)(s))
}

// UnmarshalYAML decodes a rollout block onto its defaults.
func (r *Rollout) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Rollout
	*r = DefaultRollout()
	return unmarshal((*plain)(r))
}

// UnmarshalYAML decodes a healthcheck block onto its defaults.
func (h *Healthcheck) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Healthcheck
	*h = DefaultHealthcheck()
	return unmarshal((*plain)(h))
}

// normalizeSwarm gives platform swarm its swarm block when the file has
// none.
func normalizeSwarm(s *Spec) {
	if s.Swarm() == nil {
		d := DefaultSwarm()
		s.SetBlock(&d)
	}
}

// normalizePlatform gives the platform its defaults (platform swarm its
// swarm block), a rollout its rollout block when the file has none, and
// canonical signal names.
func (s *Spec) normalizePlatform() {
	if d, ok := platformOf(s.Platform); ok && d.normalize != nil {
		d.normalize(s)
	}
}

// normalizeRollout gives kind rollout its block and canonical signal.
func normalizeRollout(s *Spec) {
	a := &s.Action
	if a.Kind == ActionRollout && a.Rollout() == nil {
		d := DefaultRollout()
		a.SetBlock(&d)
	}
	if r := a.Rollout(); r != nil {
		if sig, ok := normalizeSignal(r.StopSignal); ok {
			r.StopSignal = sig
		}
	}
}

// validatePlatform checks platform and the swarm block.
func validatePlatform(s *Spec, fail FailFunc) {
	if d, ok := platformOf(s.Platform); !ok {
		fail("platform", string(s.Platform), "want "+joinPlatforms(platformNames()))
	} else {
		for _, o := range platformDefs {
			if o.name != d.name && s.blocks[o.name] != nil {
				fail(o.block, "", "only for platform "+string(o.name))
			}
		}
		if d.validate != nil {
			d.validate(s, fail)
		}
	}
}

// validateSwarm checks what platform swarm supports.
func validateSwarm(s *Spec, fail FailFunc) {
	t := &s.Target
	if s.Load.Kind != LoadAgent && s.Load.Kind != "" {
		fail("load.kind", string(s.Load.Kind), "platform swarm drives the load agent only")
	}
	if t.Entrypoint == EntrypointShell {
		fail("target.entrypoint", string(t.Entrypoint), "not on platform swarm")
	}
	if t.Program != "" && t.Program != ProgramServer {
		fail("target.program", string(t.Program), "not on platform swarm")
	}
	if t.StopTimeout != nil {
		fail("target.grace_period", t.StopTimeout.String(), "not on platform swarm: set action.rollout.grace_period")
	}
	sw := s.Swarm()
	if sw == nil {
		return
	}
	if sw.EndpointMode != "dnsrr" && sw.EndpointMode != "vip" {
		fail("swarm.endpoint_mode", sw.EndpointMode, "want dnsrr or vip")
	}
	for i, c := range sw.Constraints {
		if !strings.Contains(c, "==") && !strings.Contains(c, "!=") {
			fail(fmt.Sprintf("swarm.constraints[%d]", i), c, `want a Swarm constraint like "node.role==manager"`)
		}
	}
	if sw.DNSRefresh <= 0 || sw.DNSRefresh.D() > time.Minute {
		fail("swarm.dns_refresh", sw.DNSRefresh.String(), "must be > 0 and at most 1m")
	}
}

// validateRollout checks action.rollout.
func validateRollout(s *Spec, fail FailFunc) {
	r := s.Action.Rollout()
	if r.Parallelism < 0 || r.Parallelism > MaxReplicas {
		fail("action.rollout.parallelism", strconv.Itoa(r.Parallelism), fmt.Sprintf("must be 0..%d (0: all at once)", MaxReplicas))
	}
	checkSpan(fail, "action.rollout.delay", r.Delay, 0, time.Minute)
	if r.Order != "start-first" && r.Order != "stop-first" {
		fail("action.rollout.order", r.Order, "want start-first or stop-first")
	}
	checkSpan(fail, "action.rollout.grace_period", r.StopGracePeriod, 0, 10*time.Minute)
	if !slices.Contains(Signals, r.StopSignal) {
		fail("action.rollout.stop_signal", r.StopSignal, "unknown signal (want one of "+strings.Join(Signals, ", ")+")")
	}
	if !slices.Contains([]string{"pause", "continue", "rollback"}, r.FailureAction) {
		fail("action.rollout.failure_action", r.FailureAction, "want pause, continue or rollback")
	}
	checkSpan(fail, "action.rollout.monitor", r.Monitor, 0, time.Minute)
	checkSpan(fail, "action.rollout.timeout", r.Timeout, time.Second, 10*time.Minute)
	h := r.Healthcheck
	switch h.Check {
	case CheckNone:
	case CheckReadiness, CheckLiveness:
		if (s.Target.Image != "" || s.Target.Runtime != RuntimeGo) && s.Platform != PlatformKubernetes {
			fail("action.rollout.healthcheck.check", h.Check, "needs the built-in Go target (its `health` subcommand is the check); use none")
		}
	default:
		fail("action.rollout.healthcheck.check", h.Check, "want readiness, liveness or none")
	}
	checkSpan(fail, "action.rollout.healthcheck.interval", h.Interval, 100*time.Millisecond, time.Minute)
	if h.Retries < 1 || h.Retries > 100 {
		fail("action.rollout.healthcheck.retries", strconv.Itoa(h.Retries), "must be 1..100")
	}
}

// checkSpan checks lo <= d <= hi.
func checkSpan(fail FailFunc, path string, d Duration, lo, hi time.Duration) {
	if d.D() < lo || d.D() > hi {
		fail(path, d.String(), fmt.Sprintf("must be in %s..%s", Duration(lo), Duration(hi)))
	}
}
