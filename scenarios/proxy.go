package scenarios

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// Topology is how the load agent reaches the replicas.
type Topology string

// The topologies.
const (
	// TopologyDirect: the load agent talks to replica 0 by name, nothing in
	// between.
	TopologyDirect Topology = "direct"
	// TopologyCaddy: the load agent talks to a Caddy reverse proxy (by the
	// name "proxy"), which balances over every replica.
	TopologyCaddy Topology = record.TopologyCaddy
)

// Proxy configures the Caddy reverse proxy of topology caddy. Each field
// maps to one setting of Caddy's reverse_proxy handler; the exact JSON the
// harness generates is saved with every run (proxy.json).
type Proxy struct {
	// Policy is the load-balancing selection policy: round_robin
	// (default), random, least_conn or first.
	Policy string `yaml:"policy" json:"policy"`
	// HealthURI is the active health check's request URI (Caddy
	// health_uri, default /readyz). "none" turns active checks off.
	HealthURI string `yaml:"health_uri" json:"health_uri"`
	// HealthInterval is how often each upstream is checked (Caddy
	// health_interval, default 1s).
	HealthInterval Duration `yaml:"health_interval" json:"health_interval"`
	// HealthTimeout bounds one health check (Caddy health_timeout,
	// default 1s).
	HealthTimeout Duration `yaml:"health_timeout" json:"health_timeout"`
	// FailDuration turns passive health checks on: an upstream is
	// considered down for this long after MaxFails failed requests
	// (Caddy fail_duration; default 0s = passive checks off).
	FailDuration Duration `yaml:"fail_duration" json:"fail_duration"`
	// MaxFails is how many failed requests within FailDuration mark an
	// upstream down (Caddy max_fails, default 1; passive checks only).
	MaxFails int `yaml:"max_fails" json:"max_fails"`
	// TryDuration is how long Caddy keeps trying upstreams for one
	// request (Caddy lb_try_duration; default 0s = no retries).
	TryDuration Duration `yaml:"try_duration" json:"try_duration"`
	// TryInterval is the wait between two tries (Caddy lb_try_interval,
	// default 250ms; only with try_duration > 0).
	TryInterval Duration `yaml:"try_interval" json:"try_interval"`
	// RetryMethods are the methods Caddy may retry after the request
	// reached an upstream (Caddy lb_retry_match; default [GET], Caddy's
	// own default). A request that never reached an upstream (dial
	// error) is retried whatever its method, within try_duration.
	RetryMethods []string `yaml:"retry_methods" json:"retry_methods"`
	// DeregisterAfter models an orchestrator's endpoint propagation: this
	// long after the roll's stop signal was sent, the runner removes the
	// acted-on replica from Caddy's upstreams through Caddy's admin API,
	// whatever the health checks say (nil: never; 0s: at the signal).
	// Only with topology caddy and action kind roll.
	DeregisterAfter *Duration `yaml:"deregister_after" json:"deregister_after,omitempty"`
}

// Roll is how an action of kind roll replaces the acted-on replica.
type Roll struct {
	// Via is how replica A is stopped: signal (docker kill -s
	// action.stop_signal, default) or stop (docker stop -t
	// action.grace_period).
	Via ActionKind `yaml:"via" json:"via"`
	// Replacement says whether a new replica joins: none (default),
	// start-first (the replacement starts and becomes ready before A is
	// stopped) or stop-first (A is stopped, and once it has exited, or the
	// window has passed, the replacement starts).
	Replacement Replacement `yaml:"replacement" json:"replacement"`
}

// Replacement is the replacement strategy of a roll.
type Replacement string

// The replacement strategies.
const (
	// ReplaceNone starts no replacement.
	ReplaceNone Replacement = "none"
	// ReplaceStartFirst starts the replacement and waits for it to be ready
	// before stopping replica A.
	ReplaceStartFirst Replacement = "start-first"
	// ReplaceStopFirst stops replica A, waits for its exit (at most the
	// window), then starts the replacement.
	ReplaceStopFirst Replacement = "stop-first"
)

// Policies are the accepted proxy.policy values.
var Policies = []string{"round_robin", "random", "least_conn", "first"}

// defaultProxy is the proxy block's defaults.
func defaultProxy() Proxy {
	return Proxy{
		Policy:         "round_robin",
		HealthURI:      "/readyz",
		HealthInterval: Seconds(1),
		HealthTimeout:  Seconds(1),
		MaxFails:       1,
		TryInterval:    Duration(250 * time.Millisecond),
		RetryMethods:   []string{"GET"},
	}
}

// normalizeProxy upper-cases retry methods.
func (s *Spec) normalizeProxy() {
	for i, m := range s.Proxy.RetryMethods {
		s.Proxy.RetryMethods[i] = strings.ToUpper(m)
	}
	if s.Action.Kind == ActionRoll && s.Action.Roll.Via == ActionSignal && s.Action.Signal == "" {
		s.Action.Signal = "SIGTERM"
	}
}

// validateTopology checks topology, proxy, roll and baseline.
func validateTopology(s *Spec, fail FailFunc) {
	switch s.Topology {
	case TopologyDirect:
		if !reflect.DeepEqual(s.Proxy, defaultProxy()) {
			fail("proxy", "", "only for topology caddy")
		}
	case TopologyCaddy:
		validateProxy(&s.Proxy, fail)
	default:
		fail("topology", string(s.Topology), "want direct or caddy")
	}
	a := &s.Action
	if a.Kind != ActionRoll {
		if a.Roll != (Roll{Via: ActionSignal, Replacement: ReplaceNone}) {
			fail("action.roll", "", "only for kind roll")
		}
	} else {
		if s.Topology != TopologyCaddy {
			fail("action.kind", string(a.Kind), "roll needs topology caddy (a replica is rolled behind the proxy)")
		}
		switch a.Roll.Via {
		case ActionSignal, ActionStop:
		default:
			fail("action.roll.via", string(a.Roll.Via), "want signal or stop")
		}
		switch a.Roll.Replacement {
		case ReplaceNone, ReplaceStartFirst, ReplaceStopFirst:
		default:
			fail("action.roll.replacement", string(a.Roll.Replacement), "want none, start-first or stop-first")
		}
	}
	validateDeregister(s, fail)
	if s.Baseline && a.Kind == ActionNone {
		fail("baseline", "true", "needs an action (the baseline is the same run without one)")
	}
}

// validateProxy checks the proxy block of topology caddy.
func validateProxy(p *Proxy, fail FailFunc) {
	if !slices.Contains(Policies, p.Policy) {
		fail("proxy.policy", p.Policy, "want one of "+strings.Join(Policies, ", "))
	}
	if p.HealthURI != "none" && !strings.HasPrefix(p.HealthURI, "/") {
		fail("proxy.health_uri", p.HealthURI, `must start with "/" (or be none)`)
	}
	if p.HealthInterval <= 0 || p.HealthInterval.D() > time.Minute {
		fail("proxy.health_interval", p.HealthInterval.String(), "must be > 0 and at most 1m")
	}
	if p.HealthTimeout <= 0 || p.HealthTimeout.D() > time.Minute {
		fail("proxy.health_timeout", p.HealthTimeout.String(), "must be > 0 and at most 1m")
	}
	if p.FailDuration < 0 || p.FailDuration.D() > 10*time.Minute {
		fail("proxy.fail_duration", p.FailDuration.String(), "must be in 0..10m")
	}
	if p.MaxFails < 1 || p.MaxFails > 1000 {
		fail("proxy.max_fails", strconv.Itoa(p.MaxFails), "must be 1..1000")
	}
	if p.TryDuration < 0 || p.TryDuration.D() > 10*time.Minute {
		fail("proxy.try_duration", p.TryDuration.String(), "must be in 0..10m")
	}
	if p.TryInterval <= 0 || p.TryInterval.D() > time.Minute {
		fail("proxy.try_interval", p.TryInterval.String(), "must be > 0 and at most 1m")
	}
	if p.TryDuration > 0 && len(p.RetryMethods) == 0 {
		fail("proxy.retry_methods", "", "want at least one method with try_duration > 0 (requests that never reached an upstream are retried anyway)")
	}
	for i, m := range p.RetryMethods {
		if !slices.Contains(Methods, m) {
			fail(fmt.Sprintf("proxy.retry_methods[%d]", i), m, "want one of "+strings.Join(Methods, ", "))
		}
	}
}

// baselineAxes are the variant key prefixes a scenario with a baseline may
// not vary: its single baseline variant must have the same load and
// topology as every variant it is compared with.
var baselineAxes = []string{"load.", "replicas", "topology", "proxy."}

// MaxDeregisterAfter bounds proxy.deregister_after.
const MaxDeregisterAfter = time.Minute

// validateDeregister checks proxy.deregister_after: only for a roll behind
// Caddy, within 0..MaxDeregisterAfter and before the observation window
// ends (the runner waits for the admin API's answer within the window).
func validateDeregister(s *Spec, fail FailFunc) {
	d := s.Proxy.DeregisterAfter
	if d == nil {
		return
	}
	switch {
	case s.Topology != TopologyCaddy:
		fail("proxy.deregister_after", d.String(), "only for topology caddy (the runner deregisters the replica from Caddy)")
	case s.Action.Kind != ActionRoll && s.Action.Kind != ActionTerminate:
		fail("proxy.deregister_after", d.String(), "only for action kind roll (timed from its stop signal) or terminate (timed from the pod's deletion)")
	case *d < 0 || d.D() > MaxDeregisterAfter:
		fail("proxy.deregister_after", d.String(), "must be in 0s.."+MaxDeregisterAfter.String())
	case d.D() >= s.Observe.Window.D():
		fail("proxy.deregister_after", d.String(), "must be shorter than observe.window ("+s.Observe.Window.String()+")")
	}
}
