package runner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/swarm"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Platform swarm (scenario platform: swarm): the replicas are the tasks of
// a Swarm service on an attachable overlay network, created by the runner
// (package swarm); the load agent, unchanged, and Caddy, with upstreams
// from DNS, join that network as ordinary containers. The service's tasks
// carry the alias replica-0 there, so topology direct aims the agent at
// the service name as every other scenario aims it at replica-0.
//
// A swarm run holds a swarm lease from set-up to teardown: the runner
// initialises a single-node swarm when the engine has none and leaves it
// at the end unless another session still holds it (package swarm).

// Bounds of a swarm run's own waits.
const (
	// swarmServiceSlack is added to the grace period when the service is
	// removed (its tasks drain first).
	swarmServiceSlack = 20 * time.Second
	// swarmNetworkBound bounds the retries of the overlay network's removal.
	swarmNetworkBound = 20 * time.Second
	// swarmPoll is how often tasks are read while waiting.
	swarmPoll = 200 * time.Millisecond
	// healthTimeout bounds one HEALTHCHECK run (the target's health
	// subcommand gives up after 2 s).
	healthTimeout = 3 * time.Second
	// swarmAlias is the service's extra DNS name on the run's network.
	swarmAlias = "replica-0"
)

// swarmPlatform is one run of platform swarm: a run plus its service.
// It embeds the run for its fields; every platform method is its own.
type swarmPlatform struct {
	*run
	sw        orchestrator
	lease     swarmLease
	netID     string
	serviceID string
	watch     serviceWatch
	rec       *record.Rollout
	// forceUpdate is the new tasks' generation once the update was sent.
	forceUpdate uint64
	// started are the task containers the run hooks were told of
	// (swarm_tasks.go).
	startedMu sync.Mutex
	started   map[string]bool
}

// Registers the Swarm platform with the runner (registry.go).
func init() { platforms.register(scenarios.PlatformSwarm, newSwarmPlatform) }

// newSwarmPlatform is the swarm platform of run x; a runner without a
// Swarm engine refuses it.
func newSwarmPlatform(x *run) (platform, error) {
	sw := swarmOf(x.r)
	if sw == nil {
		return nil, errors.New("platform swarm needs a Docker engine that can host a swarm service (this runner has none)")
	}
	return &swarmPlatform{run: x, sw: sw, rec: &record.Rollout{}}, nil
}

// grace is the tasks' stop grace period (Swarm's 10 s without a rollout
// block).
func (s *swarmPlatform) grace() time.Duration {
	if r := s.spec.Action.Rollout(); r != nil {
		return r.StopGracePeriod.D()
	}
	return 10 * time.Second
}

func (s *swarmPlatform) setUpParts() string { return "swarm, network, service, containers, readiness" }

// act is the rollout (rollout.go): the one action of platform swarm.
func (s *swarmPlatform) act(ctx context.Context, loadStart time.Time) error {
	return s.rollout(ctx, loadStart)
}

// afterLoad tells the run hooks the load ended (a Swarm run has no load
// services).
func (s *swarmPlatform) afterLoad(_ context.Context, err error) error {
	if serr := s.loadEnded(); serr != nil && err == nil {
		err = serr
	}
	return err
}

// agent is the load agent's container.
func (s *swarmPlatform) agent() agentProc { return containerAgentOf(s.run) }

// cleanupSlack lets the service's tasks drain within their grace period
// before the cleanup bound.
func (s *swarmPlatform) cleanupSlack() time.Duration { return s.grace() }

// finish records the service and its rollout.
func (s *swarmPlatform) finish(meta *record.Meta) {
	if s.spec.Action.Kind == scenarios.ActionRollout || s.serviceID != "" {
		meta.SetPart(s.rec)
	}
}

// startAll is setUp without its bound.
func (s *swarmPlatform) startAll(ctx context.Context) error {
	x := s.run
	lease, created, err := s.sw.Acquire(ctx)
	if err != nil {
		return err
	}
	s.lease, s.rec.SwarmCreated = lease, created
	if err := s.checkAgentNode(ctx); err != nil {
		return err
	}
	labels := map[string]string{"shutdownlab.run": x.name, "shutdownlab.scenario": x.spec.Name}
	x.obj.labels = labels
	if s.netID, err = s.sw.CreateOverlay(ctx, x.name, labels); err != nil {
		return err
	}
	x.obj.network = x.name
	s.rec.Network = x.name
	if x.target.ref, x.target.runtime, err = x.r.imgs.Target(ctx, imageTarget(x.spec.Target)); err != nil {
		return err
	}
	if err := s.createService(ctx); err != nil {
		return err
	}
	c, err := s.sw.WaitConverged(ctx, s.serviceID, x.spec.Replicas, 0, swarmPoll, s.readyTimeout())
	if err != nil {
		return err
	}
	if !c.Converged {
		return invalidf("service %s never ran %d tasks within %s: %s", s.rec.Service, x.spec.Replicas, s.readyTimeout(), taskStates(c.Tasks))
	}
	s.tasksStarted(ctx, c.Tasks)
	if err := s.startDNSProxy(ctx, labels); err != nil {
		return err
	}
	return x.startAgent(ctx, labels)
}

// checkAgentNode refuses a scenario whose agent must run on another node
// than the engine's: ordinary containers start where the harness talks.
func (s *swarmPlatform) checkAgentNode(ctx context.Context) error {
	want := s.spec.Swarm().AgentNode
	if want == "" || want == "local" {
		return nil
	}
	node, err := s.sw.NodeName(ctx)
	if err != nil {
		return err
	}
	if node != want {
		return invalidf("swarm.agent_node %q: the load agent runs on the engine shutdownlab talks to, node %q; point DOCKER_HOST at %q",
			want, node, want)
	}
	return nil
}

// createService creates the target service from the scenario and starts
// following its containers' engine events.
func (s *swarmPlatform) createService(ctx context.Context) error {
	x, sp := s.run, s.spec
	ro := sp.Action.Rollout()
	if ro == nil {
		d := scenarios.DefaultRollout()
		ro = &d
	}
	grace := ro.StopGracePeriod.D()
	cfg := swarm.ServiceConfig{
		Name: x.name + "-target", Image: x.target.ref, Env: s.serviceEnv(), Replicas: uint64(sp.Replicas),
		Network: x.obj.network, Aliases: []string{swarmAlias}, EndpointMode: sp.Swarm().EndpointMode,
		StopGracePeriod: &grace, StopSignal: ro.StopSignal, Init: sp.Target.Init, Labels: x.obj.labels,
		Constraints: sp.Swarm().Constraints, Command: programEntrypoint(sp.Target), Args: programArgs(sp.Target),
		Update: swarm.Update{Parallelism: uint64(ro.Parallelism), Delay: ro.Delay.D(), Order: ro.Order,
			FailureAction: ro.FailureAction, Monitor: ro.Monitor.D()},
	}
	if p := s.healthPath(ro.Healthcheck.Check); p != "" {
		cfg.Health = &swarm.Health{Test: []string{"/app", "health", p}, Interval: ro.Healthcheck.Interval.D(),
			Timeout: healthTimeout, Retries: ro.Healthcheck.Retries}
	}
	s.fillRecord(cfg, ro)
	id, err := s.sw.CreateService(ctx, cfg)
	if err != nil {
		return err
	}
	s.serviceID, s.rec.ServiceID = id, id
	// The watch outlives set-up's bound: collect stops it.
	if s.watch, err = s.sw.WatchService(context.WithoutCancel(ctx), id); err != nil {
		s.rec.EventsError = err.Error()
	}
	return nil
}

// fillRecord records the service and its rollout settings as sent.
func (s *swarmPlatform) fillRecord(cfg swarm.ServiceConfig, ro *scenarios.Rollout) {
	r := s.rec
	r.Service, r.EndpointMode = cfg.Name, cfg.EndpointMode
	r.Parallelism, r.DelayMs, r.Order, r.FailureAction = ro.Parallelism, ms(ro.Delay.D()), ro.Order, ro.FailureAction
	r.MonitorMs, r.StopGracePeriodMs, r.StopSignal = ms(ro.Monitor.D()), ms(ro.StopGracePeriod.D()), ro.StopSignal
	r.HealthCheck, r.Image = ro.Healthcheck.Check, ro.Image
	if cfg.Health != nil {
		r.HealthIntervalMs, r.HealthRetries = ms(cfg.Health.Interval), cfg.Health.Retries
	}
}

// healthPath is the path the health check GETs for check ("" for none).
func (s *swarmPlatform) healthPath(check string) string {
	switch check {
	case scenarios.CheckReadiness:
		return s.spec.Target.Protocol.ReadyPath
	case scenarios.CheckLiveness:
		return "/livez"
	}
	return ""
}

// serviceEnv is targetEnv for a task: INSTANCE names the task by its slot
// (a Swarm template), the rest as for a replica.
func (s *swarmPlatform) serviceEnv() []string {
	env := s.targetEnv(0)
	for i, kv := range env {
		if strings.HasPrefix(kv, "INSTANCE=") {
			env[i] = "INSTANCE=slot-{{.Task.Slot}}:" + strconv.Itoa(s.port())
		}
	}
	return env
}

// taskStates is "slot 1 running, slot 2 starting (message)" for a message.
func taskStates(tasks []swarm.Task) string {
	var parts []string
	for _, t := range tasks {
		p := fmt.Sprintf("slot %d %s", t.Slot, t.State)
		if t.Err != "" || t.Message != "" {
			p += " (" + strings.TrimSpace(t.Message+" "+t.Err) + ")"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "no task"
	}
	return strings.Join(parts, ", ")
}

// teardown removes the service (its tasks drain within their grace
// period), the proxy, the agent and the network, then releases the lease;
// every step runs whatever the others did.
func (s *swarmPlatform) teardown(ctx context.Context) error {
	var errs []error
	if s.serviceID != "" {
		errs = append(errs, s.sw.RemoveService(ctx, s.serviceID, s.grace()+swarmServiceSlack))
	}
	if _, err := s.r.eng.Sweep(ctx, map[string]string{"shutdownlab.run": s.name}); err != nil {
		if s.obj.network == "" {
			errs = append(errs, err)
		} else {
			errs = append(errs, s.sw.RemoveNetwork(ctx, s.obj.network, swarmNetworkBound))
		}
	}
	if s.lease != nil {
		left, err := s.lease.Release(ctx)
		errs = append(errs, err)
		if left {
			s.r.opts.Progress.Logf("swarm: left the single-node swarm this run initialised")
		}
	}
	return errors.Join(errs...)
}
