package scenarios

import (
	"strings"
	"time"
)

// PlatformKubernetes: the replicas are the pods of a Deployment in a
// namespace of the run's own on a real Kubernetes cluster (the context of
// the usual kubeconfig, or --kubeconfig/--context), behind a ClusterIP
// Service; the load agent is a pod of that namespace that dials the
// Service, so requests take the cluster's own path (kube-proxy, the CNI).
// Actions: rollout (kubectl rollout restart, or set image with
// action.rollout.image: the Deployment controller rolls every pod) and
// terminate (one pod deleted with its grace period).
const PlatformKubernetes Platform = "kubernetes"

// Kubernetes configures platform kubernetes.
type Kubernetes struct {
	// Manifest is a Kubernetes manifest whose Deployment (or the pod
	// template of a StatefulSet or Pod, run as a Deployment) is the target,
	// as written: its containers, probes, hooks, grace period, strategy and
	// replicas. Empty: the Deployment is made from the scenario (target,
	// replicas and the action's block). check --manifest --context sets
	// it.
	Manifest string `yaml:"manifest" json:"manifest,omitempty"`
	// Image replaces the image of the manifest's measured container (the
	// tag CI just built); empty: the manifest's own.
	Image string `yaml:"image" json:"image,omitempty"`
	// Workload and Container choose, in a manifest holding several, the
	// workload ("web" or "Deployment/web") and the measured container.
	Workload  string `yaml:"workload" json:"workload,omitempty"`
	Container string `yaml:"container" json:"container,omitempty"`
	// PreStopSleep, when set, replaces the measured container's preStop
	// hook with a native sleep of this length (whole seconds): check
	// --manifest --context's pre-stop search measures the manifest with
	// each length it tries.
	PreStopSleep *Duration `yaml:"pre_stop_sleep" json:"pre_stop_sleep,omitempty"`
	// ReadyPeriod is the period of the readiness probe made from the
	// scenario (default 1s); a manifest's own probes are kept as written.
	ReadyPeriod Duration `yaml:"ready_period" json:"ready_period"`
}

func (*Kubernetes) platform() Platform { return PlatformKubernetes }

// Kubernetes returns the spec's kubernetes block (the top-level key
// kubernetes), nil without one.
func (s Spec) Kubernetes() *Kubernetes { return blockOf[*Kubernetes](s.blocks, PlatformKubernetes) }

// DefaultKubernetes is the kubernetes block's defaults.
func DefaultKubernetes() Kubernetes { return Kubernetes{ReadyPeriod: Seconds(1)} }

// UnmarshalYAML decodes a kubernetes block onto its defaults.
func (k *Kubernetes) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Kubernetes
	*k = DefaultKubernetes()
	return unmarshal((*plain)(k))
}

// normalizeKubernetes gives platform kubernetes its block when the file
// has none.
func normalizeKubernetes(s *Spec) {
	if s.Kubernetes() == nil {
		d := DefaultKubernetes()
		s.SetBlock(&d)
	}
}

// validateKubernetes checks what platform kubernetes supports: the load
// agent dialling the Service (no proxy of ours: the Service is the
// balancer), the server program, and stop settings said once, in the
// action's block (or the manifest).
func validateKubernetes(s *Spec, fail FailFunc) {
	t := &s.Target
	if s.Topology != TopologyDirect {
		fail("topology", string(s.Topology), "platform kubernetes takes direct: the agent dials the Service, which balances over the pods (kube-proxy)")
	}
	if s.Load.Kind != LoadAgent && s.Load.Kind != "" {
		fail("load.kind", string(s.Load.Kind), "platform kubernetes drives the load agent only")
	}
	if t.Entrypoint == EntrypointShell {
		fail("target.entrypoint", string(t.Entrypoint), "not on platform kubernetes")
	}
	if t.Program != "" && t.Program != ProgramServer {
		fail("target.program", string(t.Program), "not on platform kubernetes")
	}
	if t.StopTimeout != nil {
		fail("target.grace_period", t.StopTimeout.String(), "not on platform kubernetes: the grace period is action.rollout.grace_period or action.terminate.grace_period (terminationGracePeriodSeconds)")
	}
	if t.Init {
		fail("target.init", "true", "not on platform kubernetes (a pod has no --init; shareProcessNamespace is not the same)")
	}
	if r := s.Action.Rollout(); r != nil && s.Action.Kind == ActionRollout {
		if r.Delay != 0 {
			fail("action.rollout.delay", r.Delay.String(), "not on platform kubernetes (the Deployment controller rolls as soon as a batch is available; minReadySeconds is action.rollout.monitor)")
		}
		if r.FailureAction != "pause" {
			fail("action.rollout.failure_action", r.FailureAction, "platform kubernetes takes pause (a Deployment stops at its progress deadline and never rolls back by itself)")
		}
	}
	if tm := s.Action.Terminate(); tm != nil && tm.NewPod != nil {
		fail("action.terminate.new_pod", "", "not on platform kubernetes: the Deployment controller starts the new pod itself")
	}
	k := s.Kubernetes()
	if k == nil {
		return
	}
	checkSpan(fail, "kubernetes.ready_period", k.ReadyPeriod, time.Second, time.Minute)
	if k.Image != "" && k.Manifest == "" {
		fail("kubernetes.image", k.Image, "needs kubernetes.manifest (without one the image is target.image)")
	}
	if p := k.PreStopSleep; p != nil {
		if k.Manifest == "" {
			fail("kubernetes.pre_stop_sleep", p.String(), "needs kubernetes.manifest (without one the hook is action.terminate.pre_stop)")
		}
		checkSeconds(fail, "kubernetes.pre_stop_sleep", *p)
		checkSpan(fail, "kubernetes.pre_stop_sleep", *p, 0, 10*time.Minute)
	}
	if strings.ContainsAny(k.Image, " \t\r\n") {
		fail("kubernetes.image", Shorten(k.Image), "not an image reference")
	}
}
