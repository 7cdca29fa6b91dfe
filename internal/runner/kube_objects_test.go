package runner

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// specOf loads a scenario from YAML and expands its single variant.
func specOf(t *testing.T, src string) scenarios.Spec {
	t.Helper()
	sc, err := scenarios.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand(nil)
	if err != nil || len(vs) != 1 {
		t.Fatalf("expand: %v (%d variants)", err, len(vs))
	}
	return vs[0].Spec
}

// TestKubeSettingsOf: each setting comes from the one place the scenario
// says it — a rollout's grace, signal, order, parallelism, monitor and
// health check; a termination's grace, signal and hook.
func TestKubeSettingsOf(t *testing.T) {
	const head = "name: t\nplatform: kubernetes\nreplicas: 3\nobserve: {window: 40s}\n"
	tests := []struct {
		name        string
		src         string
		grace       int64
		signal      string
		surge, unav intstr.IntOrString
		minReady    int32
		readyEvery  int32
		hook        bool
	}{
		{"rollout defaults: stop-first one at a time", head + "action: {kind: rollout, at: 1s}\n", 10, "", intstr.FromInt(0), intstr.FromInt(1), 1, 1, false},
		{"start-first two at a time, 30 s, QUIT", head + "action: {kind: rollout, at: 1s, rollout: {order: start-first, parallelism: 2, grace_period: 30s, stop_signal: SIGQUIT, monitor: 3s, healthcheck: {interval: 2s}}}\n",
			30, "SIGQUIT", intstr.FromInt(2), intstr.FromInt(0), 3, 2, false},
		{"all at once", head + "action: {kind: rollout, at: 1s, rollout: {parallelism: 0}}\n", 10, "", intstr.FromInt(0), intstr.FromString("100%"), 1, 1, false},
		{"terminate", head + "action: {kind: terminate, at: 1s, terminate: {grace_period: 20s, stop_signal: SIGINT, pre_stop: {sleep: 2s}}}\n",
			20, "SIGINT", intstr.FromString("25%"), intstr.FromString("25%"), 0, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := kubeSettingsOf(specOf(t, tt.src), 8080)
			if k.graceS != tt.grace || k.stopSignal != tt.signal || k.maxSurge != tt.surge || k.maxUnavailable != tt.unav ||
				k.minReadyS != tt.minReady || k.readiness.PeriodSeconds != tt.readyEvery || (k.preStop != nil) != tt.hook {
				t.Errorf("settings %+v", k)
			}
		})
	}
}

// TestKubeDeployment: the pods carry the run's labels, the POD_IP the
// target's INSTANCE expands, the hook, and a stop signal with the OS the
// API requires beside it; the agent dials the Service's name, mapped to
// its ClusterIP, and is never restarted.
func TestKubeDeployment(t *testing.T) {
	sleep := scenarios.Duration(2 * time.Second)
	k := kubeSettings{graceS: 20, stopSignal: "SIGQUIT", preStop: &scenarios.PreStop{Sleep: &sleep},
		maxSurge: intstr.FromInt(1), maxUnavailable: intstr.FromInt(0)}
	d := kubeDeployment("ns1", "reg/target:1", 2, []string{"MODE=full", "INSTANCE=$(POD_IP):8080"}, nil, nil, 8080, k)
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	switch {
	case *d.Spec.Replicas != 2 || d.Spec.Template.Labels["shutdownlab.run"] != "ns1" || d.Spec.Selector.MatchLabels[kubeAppLabel] == "":
		t.Errorf("labels %v selector %v", d.Spec.Template.Labels, d.Spec.Selector)
	case c.Env[0].Name != "POD_IP" || c.Env[0].ValueFrom == nil || c.Env[2].Value != "$(POD_IP):8080":
		t.Errorf("env %+v", c.Env)
	case c.Lifecycle == nil || c.Lifecycle.PreStop.Sleep.Seconds != 2 || string(*c.Lifecycle.StopSignal) != "SIGQUIT" || pod.OS == nil:
		t.Errorf("lifecycle %+v os %v", c.Lifecycle, pod.OS)
	case *pod.TerminationGracePeriodSeconds != 20 || c.ImagePullPolicy != "IfNotPresent":
		t.Errorf("grace %d pull %s", *pod.TerminationGracePeriodSeconds, c.ImagePullPolicy)
	}
	a := kubeAgentPod("ns1", "reg/agent:1", []string{"-target", kubeAgentTarget(8080)}, "10.96.0.7", 256<<20)
	if a.Spec.RestartPolicy != "Never" || a.Spec.HostAliases[0].IP != "10.96.0.7" || a.Spec.HostAliases[0].Hostnames[0] != kubeTarget ||
		a.Spec.Containers[0].Args[1] != "target:8080" || a.Spec.Containers[0].Resources.Limits.Memory().Value() != 256<<20 {
		t.Errorf("agent pod %+v", a.Spec)
	}
}

// TestKubeNames: namespace names and label values the API accepts.
func TestKubeNames(t *testing.T) {
	if got := kubeName("shutdownlab-AB12_cd-3"); got != "shutdownlab-ab12-cd-3" {
		t.Errorf("kubeName %q", got)
	}
	if got := kubeLabelValue("my scenario/v2."); got != "my_scenario_v2" {
		t.Errorf("kubeLabelValue %q", got)
	}
}
