package swarm

import (
	"testing"
	"time"

	"github.com/moby/moby/api/types/swarm"
)

func TestServiceSpec(t *testing.T) {
	grace := 7 * time.Second
	c := ServiceConfig{
		Name: "svc", Image: "img", Env: []string{"A=1"}, Replicas: 2, Network: "net",
		EndpointMode: EndpointDNSRR, StopGracePeriod: &grace, StopSignal: "SIGINT", Init: true,
		Health:      &Health{Test: []string{"/target", "health", "/readyz"}, Interval: time.Second, Retries: 3},
		Constraints: []string{"node.role==manager"},
		Update:      Update{Parallelism: 1, Delay: 500 * time.Millisecond, Order: "start-first", FailureAction: "continue"},
	}
	spec, err := serviceSpec(c, map[string]string{"shutdownlab": "1"})
	if err != nil {
		t.Fatal(err)
	}
	cs := spec.TaskTemplate.ContainerSpec
	switch {
	case spec.Name != "svc" || cs.Image != "img" || *spec.Mode.Replicated.Replicas != 2:
		t.Errorf("name/image/replicas: %+v", spec)
	case spec.EndpointSpec.Mode != swarm.ResolutionModeDNSRR:
		t.Errorf("endpoint mode %q", spec.EndpointSpec.Mode)
	case *cs.StopGracePeriod != grace || cs.StopSignal != "SIGINT" || cs.Init == nil || !*cs.Init:
		t.Errorf("stop settings: %+v", cs)
	case cs.Healthcheck == nil || cs.Healthcheck.Test[0] != "CMD" || cs.Healthcheck.Retries != 3:
		t.Errorf("healthcheck: %+v", cs.Healthcheck)
	case spec.UpdateConfig.Order != swarm.UpdateOrderStartFirst || spec.UpdateConfig.FailureAction != swarm.UpdateFailureActionContinue:
		t.Errorf("update config: %+v", spec.UpdateConfig)
	case spec.TaskTemplate.Networks[0].Target != "net" || spec.TaskTemplate.Placement.Constraints[0] != "node.role==manager":
		t.Errorf("network/placement: %+v", spec.TaskTemplate)
	case spec.Labels["shutdownlab"] != "1" || cs.Labels["shutdownlab"] != "1":
		t.Errorf("labels: %v / %v", spec.Labels, cs.Labels)
	}
	for _, bad := range []ServiceConfig{
		{Name: "s"},
		{Name: "s", Image: "i", EndpointMode: "ipvs"},
		{Name: "s", Image: "i", Update: Update{Order: "sideways"}},
		{Name: "s", Image: "i", Update: Update{FailureAction: "panic"}},
	} {
		if _, err := serviceSpec(bad, nil); err == nil {
			t.Errorf("serviceSpec(%+v): no error", bad)
		}
	}
}

func TestConverged(t *testing.T) {
	run := func(fu uint64) Task { return Task{DesiredState: "running", State: "running", ForceUpdate: fu} }
	ended := Task{DesiredState: "shutdown", State: "shutdown"}
	draining := Task{DesiredState: "shutdown", State: "running"}
	for _, tc := range []struct {
		name  string
		tasks []Task
		want  bool
	}{
		{"two new running, old ended", []Task{ended, ended, run(1), run(1)}, true},
		{"old still draining", []Task{draining, ended, run(1), run(1)}, false},
		{"old generation running", []Task{run(0), run(1)}, false},
		{"one short", []Task{ended, run(1)}, false},
	} {
		if got := converged(tc.tasks, 2, 1); got != tc.want {
			t.Errorf("%s: converged = %v, want %v", tc.name, got, tc.want)
		}
	}
}
