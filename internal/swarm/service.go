package swarm

import (
	"fmt"
	"maps"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/swarm"
)

// Endpoint modes of a service.
const (
	// EndpointDNSRR: the service name resolves to the tasks' addresses
	// (DNS round robin), no virtual IP. Works on this machine.
	EndpointDNSRR = "dnsrr"
	// EndpointVIP: the service name resolves to one virtual IP balanced by
	// IPVS. Docker's default; untested here (IPVS does not answer on this
	// machine's kernel).
	EndpointVIP = "vip"
)

// Health is a Docker HEALTHCHECK for the service's containers.
type Health struct {
	// Test is the command, exec form without the "CMD" word, e.g.
	// ["/target", "health", "/readyz"].
	Test []string
	// Interval, Timeout and StartPeriod as Docker's; Retries failures in a
	// row make the container unhealthy (Swarm then replaces the task).
	Interval, Timeout, StartPeriod time.Duration
	Retries                        int
}

// Update is a service's rolling-update policy (docker service update
// --update-*).
type Update struct {
	// Parallelism is how many tasks are replaced at once (0: all).
	Parallelism uint64
	// Delay is the pause between two batches.
	Delay time.Duration
	// Order is "start-first" or "stop-first".
	Order string
	// FailureAction is "pause", "continue" or "rollback".
	FailureAction string
	// Monitor is how long each new task is watched for failure (0: the
	// engine's default, 5 s).
	Monitor time.Duration
}

// ServiceConfig describes a replicated service.
type ServiceConfig struct {
	// Name is the service name (its DNS name on Network).
	Name string
	// Image must exist on every node that may run a task (nothing is
	// pulled).
	Image string
	// Command replaces the image's entrypoint when set; Args its command.
	Command, Args []string
	// Env is a list of KEY=value; Swarm's templates work in values
	// ("{{.Task.Slot}}").
	Env []string
	// Replicas is the number of tasks.
	Replicas uint64
	// Network is the overlay network to attach to (name or id); Aliases
	// are extra DNS names of the service on it (they resolve like the
	// service name).
	Network string
	Aliases []string
	// EndpointMode is EndpointDNSRR or EndpointVIP ("" is VIP).
	EndpointMode string
	// StopGracePeriod is the time between the stop signal and SIGKILL
	// (nil: the engine's 10 s); StopSignal the stop signal ("" SIGTERM).
	StopGracePeriod *time.Duration
	StopSignal      string
	// Init runs Docker's init as PID 1.
	Init bool
	// Health is the containers' health check (nil: the image's, none for
	// the built-in targets).
	Health *Health
	// Labels are extra labels, on the service and its containers (with
	// the engine's managed, session and owner labels).
	Labels map[string]string
	// Constraints are placement constraints ("node.role==manager").
	Constraints []string
	// Update is the rolling-update policy.
	Update Update
	// RestartDelay is the pause before a failed task is replaced (nil:
	// the engine's 5 s).
	RestartDelay *time.Duration
}

// serviceSpec builds the engine's ServiceSpec from c; labels are the
// complete labels (the engine's plus c.Labels). Pure.
func serviceSpec(c ServiceConfig, labels map[string]string) (swarm.ServiceSpec, error) {
	if c.Name == "" || c.Image == "" {
		return swarm.ServiceSpec{}, fmt.Errorf("service spec: name %q and image %q are required", c.Name, c.Image)
	}
	mode := swarm.ResolutionModeVIP
	switch c.EndpointMode {
	case "", EndpointVIP:
	case EndpointDNSRR:
		mode = swarm.ResolutionModeDNSRR
	default:
		return swarm.ServiceSpec{}, fmt.Errorf("service %s: endpoint mode %q: want dnsrr or vip", c.Name, c.EndpointMode)
	}
	uc, err := updateConfig(c.Name, c.Update)
	if err != nil {
		return swarm.ServiceSpec{}, err
	}
	replicas := c.Replicas
	cs := &swarm.ContainerSpec{
		Image: c.Image, Command: c.Command, Args: c.Args, Env: c.Env,
		Labels: maps.Clone(labels), StopGracePeriod: c.StopGracePeriod, StopSignal: c.StopSignal,
	}
	if c.Init {
		t := true
		cs.Init = &t
	}
	if h := c.Health; h != nil {
		cs.Healthcheck = &container.HealthConfig{
			Test: append([]string{"CMD"}, h.Test...), Interval: h.Interval, Timeout: h.Timeout,
			StartPeriod: h.StartPeriod, Retries: h.Retries,
		}
	}
	spec := swarm.ServiceSpec{
		Annotations: swarm.Annotations{Name: c.Name, Labels: maps.Clone(labels)},
		TaskTemplate: swarm.TaskSpec{
			ContainerSpec: cs,
			RestartPolicy: &swarm.RestartPolicy{Condition: swarm.RestartPolicyConditionAny, Delay: c.RestartDelay},
		},
		Mode:           swarm.ServiceMode{Replicated: &swarm.ReplicatedService{Replicas: &replicas}},
		UpdateConfig:   uc,
		RollbackConfig: uc,
		EndpointSpec:   &swarm.EndpointSpec{Mode: mode},
	}
	if c.Network != "" {
		spec.TaskTemplate.Networks = []swarm.NetworkAttachmentConfig{{Target: c.Network, Aliases: c.Aliases}}
	}
	if len(c.Constraints) > 0 {
		spec.TaskTemplate.Placement = &swarm.Placement{Constraints: c.Constraints}
	}
	return spec, nil
}

// updateConfig checks and converts an update policy.
func updateConfig(name string, u Update) (*swarm.UpdateConfig, error) {
	uc := &swarm.UpdateConfig{Parallelism: u.Parallelism, Delay: u.Delay, Monitor: u.Monitor}
	switch u.Order {
	case "", string(swarm.UpdateOrderStopFirst):
		uc.Order = swarm.UpdateOrderStopFirst
	case string(swarm.UpdateOrderStartFirst):
		uc.Order = swarm.UpdateOrderStartFirst
	default:
		return nil, fmt.Errorf("service %s: update order %q: want start-first or stop-first", name, u.Order)
	}
	switch u.FailureAction {
	case "", string(swarm.UpdateFailureActionPause):
		uc.FailureAction = swarm.UpdateFailureActionPause
	case string(swarm.UpdateFailureActionContinue), string(swarm.UpdateFailureActionRollback):
		uc.FailureAction = swarm.FailureAction(u.FailureAction)
	default:
		return nil, fmt.Errorf("service %s: failure action %q: want pause, continue or rollback", name, u.FailureAction)
	}
	return uc, nil
}
