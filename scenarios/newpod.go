package scenarios

import (
	"fmt"
	"strings"
	"time"
)

// NewPod is the pod a rolling update starts in the terminated pod's place
// (action.terminate.new_pod): it runs the same target, joins the proxy's
// upstreams proxy.deregister_after after its readiness passed (the
// endpoint's propagation, as for the old pod's removal), and, with
// before_deletion, must be available before the old pod is deleted.
type NewPod struct {
	// BeforeDeletion: the old pod is deleted only once the new one is
	// available (ready for min_ready), as a Deployment with maxSurge >= 1
	// and maxUnavailable 0 does. false: the new pod starts at the
	// deletion (maxUnavailable >= 1, or no surge).
	BeforeDeletion bool `yaml:"before_deletion" json:"before_deletion"`
	// Readiness is the container's HTTP readiness probe; nil: the pod is
	// ready as soon as its container started, as Kubernetes marks a pod
	// without a readinessProbe.
	Readiness *Readiness `yaml:"readiness" json:"readiness,omitempty"`
	// MinReady is minReadySeconds: how long the pod must have been ready
	// to count as available (default 0s).
	MinReady Duration `yaml:"min_ready" json:"min_ready"`
	// Timeout bounds the wait for the pod to be ready (default 60s): a
	// pod not ready by then makes the run invalid (a rollout would stall).
	Timeout Duration `yaml:"timeout" json:"timeout"`
}

// Readiness is an httpGet readiness probe.
type Readiness struct {
	// Path is the GET's path; Port the container port (0: the target's).
	Path string `yaml:"path" json:"path"`
	Port int    `yaml:"port" json:"port,omitempty"`
	// InitialDelay is initialDelaySeconds (default 0s); Period
	// periodSeconds (default 10s); Timeout timeoutSeconds (default 1s).
	InitialDelay Duration `yaml:"initial_delay" json:"initial_delay"`
	Period       Duration `yaml:"period" json:"period"`
	Timeout      Duration `yaml:"timeout" json:"timeout"`
	// SuccessThreshold is how many probes in a row must pass (default 1).
	SuccessThreshold int `yaml:"success_threshold" json:"success_threshold"`
}

// Defaults and bounds of a new pod's settings (Kubernetes' own defaults
// for the probe's).
const (
	DefaultNewPodTimeout   = 60 * time.Second
	MaxNewPodTimeout       = 10 * time.Minute
	DefaultReadinessPeriod = 10 * time.Second
	DefaultReadinessWait   = 1 * time.Second
	MaxReadinessSuccesses  = 100
)

// UnmarshalYAML decodes a new_pod block onto its defaults.
func (n *NewPod) UnmarshalYAML(unmarshal func(any) error) error {
	type plain NewPod
	*n = NewPod{Timeout: Duration(DefaultNewPodTimeout)}
	return unmarshal((*plain)(n))
}

// UnmarshalYAML decodes a readiness block onto Kubernetes' defaults.
func (r *Readiness) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Readiness
	*r = Readiness{Period: Duration(DefaultReadinessPeriod), Timeout: Duration(DefaultReadinessWait), SuccessThreshold: 1}
	return unmarshal((*plain)(r))
}

// validateNewPod checks action.terminate.new_pod: it joins the proxy, so
// it needs topology caddy and the propagation delay.
func validateNewPod(s *Spec, n *NewPod, fail FailFunc) {
	const f = "action.terminate.new_pod"
	if s.Topology != TopologyCaddy {
		fail(f, "", "needs topology caddy (the new pod joins the proxy's upstreams)")
	}
	if s.Proxy.DeregisterAfter == nil {
		fail(f, "", "needs proxy.deregister_after (the endpoint's propagation delay, for the new pod's joining as for the old pod's leaving)")
	}
	if n.MinReady < 0 {
		fail(f+".min_ready", n.MinReady.String(), "must not be negative")
	}
	if n.Timeout.D() <= 0 || n.Timeout.D() > MaxNewPodTimeout {
		fail(f+".timeout", n.Timeout.String(), "must be in (0s, "+MaxNewPodTimeout.String()+"]")
	}
	r := n.Readiness
	if r == nil {
		return
	}
	if !strings.HasPrefix(r.Path, "/") {
		fail(f+".readiness.path", r.Path, "must start with /")
	}
	if r.Port < 0 || r.Port > 65535 {
		fail(f+".readiness.port", fmt.Sprint(r.Port), "must be a port (0: the target's)")
	}
	if r.InitialDelay < 0 {
		fail(f+".readiness.initial_delay", r.InitialDelay.String(), "must not be negative")
	}
	if r.Period.D() <= 0 {
		fail(f+".readiness.period", r.Period.String(), "must be positive")
	}
	if r.Timeout.D() <= 0 {
		fail(f+".readiness.timeout", r.Timeout.String(), "must be positive")
	}
	if r.SuccessThreshold < 1 || r.SuccessThreshold > MaxReadinessSuccesses {
		fail(f+".readiness.success_threshold", fmt.Sprint(r.SuccessThreshold), fmt.Sprintf("must be in 1..%d", MaxReadinessSuccesses))
	}
}
