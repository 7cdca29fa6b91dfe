package runner

import (
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// The objects a platform kubernetes run creates in its namespace, made
// from the scenario: pure functions of the spec, table-tested.

// Names of a kubernetes run's objects in its own namespace.
const (
	// kubeTarget names the Deployment, its Service and its container.
	kubeTarget = "target"
	// kubeAgent names the load agent's pod and container.
	kubeAgent = "agent"
	// kubeAppLabel is the label the Deployment selects its pods by.
	kubeAppLabel = "app.kubernetes.io/name"
	// kubeRestartedAt is the annotation `kubectl rollout restart` sets.
	kubeRestartedAt = "kubectl.kubernetes.io/restartedAt"
)

// kubeTargetLabels are the target pods' labels.
func kubeTargetLabels(run string) map[string]string {
	return map[string]string{kubeAppLabel: "shutdownlab-target", "shutdownlab.run": run}
}

// kubeSettings are the pod settings of the target made from the scenario:
// the grace period, stop signal, pre-stop hook, probes and update
// strategy, each from the one place the scenario says it.
type kubeSettings struct {
	graceS         int64
	stopSignal     string // "": the image's own
	preStop        *scenarios.PreStop
	readiness      *corev1.Probe
	liveness       *corev1.Probe
	maxSurge       intstr.IntOrString
	maxUnavailable intstr.IntOrString
	minReadyS      int32
}

// kubeSettingsOf reads the target's pod settings from the spec's action:
// a rollout's grace_period, stop_signal, healthcheck, order and
// parallelism (start-first: surge, stop-first: unavailable; 0: all at
// once) and monitor (minReadySeconds); a termination's grace, stop
// signal and pre-stop hook with the Deployment's default strategy. The
// readiness probe GETs the ready path every kubernetes.ready_period.
func kubeSettingsOf(s scenarios.Spec, port int) kubeSettings {
	k := kubeSettings{graceS: 30, maxSurge: intstr.FromString("25%"), maxUnavailable: intstr.FromString("25%")}
	period := int32(1)
	if b := s.Kubernetes(); b != nil && b.ReadyPeriod.D() > 0 {
		period = int32(b.ReadyPeriod.D().Seconds())
	}
	get := func(path string, every int32, fail int32) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt(port)}},
			PeriodSeconds: every, FailureThreshold: fail, SuccessThreshold: 1, TimeoutSeconds: 1}
	}
	k.readiness = get(s.Target.Protocol.ReadyPath, period, 1)
	switch a := s.Action; {
	case a.Rollout() != nil && a.Kind == scenarios.ActionRollout:
		r := a.Rollout()
		k.graceS, k.minReadyS = int64(r.StopGracePeriod.D().Seconds()), int32(r.Monitor.D().Seconds())
		if r.StopSignal != "SIGTERM" {
			k.stopSignal = r.StopSignal
		}
		n := intstr.FromInt(max(r.Parallelism, 1))
		if r.Parallelism == 0 {
			n = intstr.FromString("100%")
		}
		k.maxSurge, k.maxUnavailable = intstr.FromInt(0), n
		if r.Order == "start-first" {
			k.maxSurge, k.maxUnavailable = n, intstr.FromInt(0)
		}
		h := r.Healthcheck
		every := int32(max(h.Interval.D().Seconds(), 1))
		switch h.Check {
		case scenarios.CheckReadiness:
			k.readiness = get(s.Target.Protocol.ReadyPath, every, int32(h.Retries))
		case scenarios.CheckLiveness:
			k.liveness = get("/livez", every, int32(h.Retries))
		}
	case a.Terminate() != nil && a.Kind == scenarios.ActionTerminate:
		t := a.Terminate()
		k.graceS, k.stopSignal, k.preStop = int64(t.Grace.D().Seconds()), t.StopSignal, t.PreStop
	}
	return k
}

// kubeDeployment is the target's Deployment: replicas pods of image with
// env (entries "$(POD_IP)" expand to the pod's address) and the settings.
func kubeDeployment(run, image string, replicas int, env []string, cmd, args []string, port int, k kubeSettings) *appsv1.Deployment {
	labels := kubeTargetLabels(run)
	n := int32(replicas)
	c := corev1.Container{
		Name: kubeTarget, Image: image, ImagePullPolicy: corev1.PullIfNotPresent, Command: cmd, Args: args,
		Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: int32(port), Protocol: corev1.ProtocolTCP}},
		ReadinessProbe: k.readiness, LivenessProbe: k.liveness,
		Env: append([]corev1.EnvVar{{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}}},
			kubeEnv(env)...),
	}
	if h := kubePreStop(k.preStop, port); h != nil || k.stopSignal != "" {
		c.Lifecycle = &corev1.Lifecycle{PreStop: h}
		if k.stopSignal != "" {
			sig := corev1.Signal(k.stopSignal)
			c.Lifecycle.StopSignal = &sig
		}
	}
	spec := corev1.PodSpec{Containers: []corev1.Container{c}, TerminationGracePeriodSeconds: &k.graceS,
		EnableServiceLinks: new(bool)}
	if k.stopSignal != "" {
		spec.OS = &corev1.PodOS{Name: corev1.Linux} // the API requires it beside a stop signal
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: kubeTarget, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: labels}, MinReadySeconds: k.minReadyS,
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &k.maxSurge, MaxUnavailable: &k.maxUnavailable}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
		},
	}
}

// kubeEnv turns NAME=VALUE lines into a container's env.
func kubeEnv(env []string) []corev1.EnvVar {
	var out []corev1.EnvVar
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		out = append(out, corev1.EnvVar{Name: k, Value: v})
	}
	return out
}

// kubePreStop is a scenario's pre-stop hook as a container's (nil: none).
func kubePreStop(p *scenarios.PreStop, port int) *corev1.LifecycleHandler {
	switch {
	case p == nil:
		return nil
	case p.Sleep != nil:
		return &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: int64(p.Sleep.D().Seconds())}}
	case p.Exec != nil:
		return &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: p.Exec}}
	case p.HTTPGet != nil:
		hp := p.HTTPGet.Port
		if hp == 0 {
			hp = port
		}
		return &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: p.HTTPGet.Path, Port: intstr.FromInt(hp)}}
	}
	return nil
}

// kubeService is the ClusterIP Service over the target's pods.
func kubeService(run string, port int) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: kubeTarget, Labels: map[string]string{"shutdownlab.run": run}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Selector: kubeTargetLabels(run),
			Ports: []corev1.ServicePort{{Name: "http", Port: int32(port), TargetPort: intstr.FromInt(port), Protocol: corev1.ProtocolTCP}}},
	}
}

// kubeAgentPod is the load agent's pod: image with args, the Service's
// name mapped to its ClusterIP in /etc/hosts (no cluster DNS is needed,
// and the path is still the Service's), never restarted, with the
// harness's memory limit and a grace period that lets it drain.
func kubeAgentPod(run, image string, args []string, clusterIP string, memBytes int64) *corev1.Pod {
	grace := int64(agentDrain.Seconds()) + 5
	c := corev1.Container{Name: kubeAgent, Image: image, ImagePullPolicy: corev1.PullIfNotPresent, Args: args}
	if memBytes > 0 {
		c.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(memBytes, resource.BinarySI)}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: kubeAgent, Labels: map[string]string{kubeAppLabel: "shutdownlab-agent", "shutdownlab.run": run}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{c}, RestartPolicy: corev1.RestartPolicyNever,
			TerminationGracePeriodSeconds: &grace, EnableServiceLinks: new(bool),
			HostAliases: []corev1.HostAlias{{IP: clusterIP, Hostnames: []string{kubeTarget}}}},
	}
}

// kubeAgentTarget is the address the agent dials on platform kubernetes:
// the Service's name and port.
func kubeAgentTarget(port int) string { return kubeTarget + ":" + strconv.Itoa(port) }

// kubeName is a DNS-1123 label from s: lower case, other characters '-',
// at most 63 characters.
func kubeName(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			b[i] = '-'
		}
	}
	out := strings.Trim(string(b), "-")
	if len(out) > 63 {
		out = strings.TrimRight(out[:63], "-")
	}
	return out
}

// kubeLabelValue is s as a label value (at most 63 characters of
// [A-Za-z0-9._-], starting and ending alphanumeric; "" stays "").
func kubeLabelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	out := string(b)
	if len(out) > 63 {
		out = out[:63]
	}
	return strings.Trim(out, "._-")
}
