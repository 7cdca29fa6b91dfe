package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/client"

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

// swarmRun is one run of platform swarm: a run plus its service.
type swarmRun struct {
	*run
	sw        *swarm.Engine
	lease     *swarm.Lease
	netID     string
	serviceID string
	watch     *swarm.Watch
	rec       *record.Rollout
	// forceUpdate is the new tasks' generation once the update was sent.
	forceUpdate uint64
}

// runSwarm is runOnce for platform swarm: same phases, same invalid-run
// rules, with a Swarm service in place of the replica containers.
func (r *Runner) runSwarm(ctx context.Context, v scenarios.Variant, i int, dir string) record.Meta {
	r.seq++
	x := &run{
		r: r, v: v, spec: v.Spec, dir: dir,
		name:   fmt.Sprintf("shutdownlab-%s-%d", r.eng.Session(), r.seq),
		stream: newAgentStream(),
		meta: record.Meta{
			Scenario: v.Spec.Name, Variant: v.Label, Params: v.Params, Run: i, Valid: true,
			Baseline: v.Baseline,
		},
	}
	load, err := newLoadDriver(v.Spec.Load.Kind)
	if err == nil && r.dock == nil {
		err = errors.New("platform swarm needs a Docker engine (not a fake)")
	}
	if err != nil {
		x.judge(ctx, err)
		return x.meta
	}
	x.load, x.stream.other = load, load.observe
	s := &swarmRun{run: x, sw: swarm.New(r.dock), rec: &record.Rollout{}}
	overlap := startOverlapWatch(ctx, r.overlap, r.eng.Session())
	t0 := time.Now()
	err = os.MkdirAll(dir, 0o755)
	if err == nil {
		err = s.execute(ctx, t0)
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout+s.grace())
	defer cancel()
	tEnd := time.Now()
	x.meta.OverlappedWith = x.overlapped(cctx, overlap)
	if cerr := s.collect(cctx); cerr != nil && err == nil {
		err = cerr
	}
	if terr := s.teardown(cctx); terr != nil {
		r.opts.Progress.Logf("cleanup: %v (run `shutdownlab clean` to sweep)", terr)
		if err == nil {
			err = terr
		}
	}
	x.meta.TeardownMs = ms(time.Since(tEnd))
	if x.spec.Action.Kind == scenarios.ActionRollout || s.serviceID != "" {
		x.meta.Rollout = s.rec
	}
	x.judge(ctx, err)
	return x.meta
}

// grace is the tasks' stop grace period (Swarm's 10 s without a rollout
// block).
func (s *swarmRun) grace() time.Duration {
	if r := s.spec.Action.Rollout; r != nil {
		return r.StopGracePeriod.D()
	}
	return 10 * time.Second
}

// execute sets up, loads, rolls and waits for the load, like run.execute.
func (s *swarmRun) execute(ctx context.Context, t0 time.Time) (retErr error) {
	x := s.run
	if err := s.setUp(ctx); err != nil {
		return err
	}
	fol, err := x.followAgent(ctx)
	if err != nil {
		return err
	}
	x.follow = fol
	rctx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	go func() {
		select {
		case <-x.stream.outputFailed:
			cancelRun()
		case <-rctx.Done():
		}
	}()
	defer func() {
		if retErr != nil {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), agentStopBound)
			x.stopAgent(sctx)
			cancel()
		}
		x.endFollow()
	}()
	sw := &startWait{eng: x.r.eng, agent: x.agent, loadName: x.load.name(),
		timeout: x.startBound(), stream: x.stream, streamEnded: fol.done, progress: x.r.opts.Progress}
	if err := sw.wait(rctx); err != nil {
		return err
	}
	loadStart := time.Unix(0, x.stream.LoadStart())
	x.meta.LoadStartNs = loadStart.UnixNano()
	x.meta.SetupMs = ms(loadStart.Sub(t0))
	stopTicker := x.tickProgress(loadStart)
	defer stopTicker()
	if err := s.rollout(rctx, loadStart); err != nil {
		return err
	}
	return x.awaitAgent(rctx, loadStart)
}

// setUp takes the swarm lease, creates the overlay network and the
// service, waits for its tasks, then starts the proxy and the agent,
// within the same bound as run.setUp.
func (s *swarmRun) setUp(ctx context.Context) error {
	bound := max(s.readyTimeout(), proxyReadyTimeout) + setupSlack
	sctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	err := s.startAll(sctx)
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		return invalidf("set-up (swarm, network, service, containers, readiness) took longer than %s: %v", bound, err)
	}
	return err
}

// startAll is setUp without its bound.
func (s *swarmRun) startAll(ctx context.Context) error {
	x := s.run
	lease, err := s.sw.Acquire(ctx)
	if err != nil {
		return err
	}
	s.lease, s.rec.SwarmCreated = lease, lease.Created
	if err := s.checkAgentNode(ctx); err != nil {
		return err
	}
	labels := map[string]string{"shutdownlab.run": x.name, "shutdownlab.scenario": x.spec.Name}
	x.labels = labels
	if s.netID, err = s.sw.CreateOverlay(ctx, x.name, labels); err != nil {
		return err
	}
	x.network = x.name
	s.rec.Network = x.name
	if x.targetRef, x.runtime, err = x.r.imgs.Target(ctx, imageTarget(x.spec.Target)); err != nil {
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
	if err := s.startDNSProxy(ctx, labels); err != nil {
		return err
	}
	return x.startAgent(ctx, labels)
}

// checkAgentNode refuses a scenario whose agent must run on another node
// than the engine's: ordinary containers start where the harness talks.
func (s *swarmRun) checkAgentNode(ctx context.Context) error {
	want := s.spec.Swarm.AgentNode
	if want == "" || want == "local" {
		return nil
	}
	info, err := s.sw.Docker().Client().Info(ctx, client.InfoOptions{})
	if err != nil {
		return fmt.Errorf("docker info: %w", err)
	}
	if info.Info.Name != want {
		return invalidf("swarm.agent_node %q: the load agent runs on the engine shutdownlab talks to, node %q; point DOCKER_HOST at %q",
			want, info.Info.Name, want)
	}
	return nil
}

// createService creates the target service from the scenario and starts
// following its containers' engine events.
func (s *swarmRun) createService(ctx context.Context) error {
	x, sp := s.run, s.spec
	ro := sp.Action.Rollout
	if ro == nil {
		d := scenarios.DefaultRollout()
		ro = &d
	}
	grace := ro.StopGracePeriod.D()
	cfg := swarm.ServiceConfig{
		Name: x.name + "-target", Image: x.targetRef, Env: s.serviceEnv(), Replicas: uint64(sp.Replicas),
		Network: x.network, Aliases: []string{swarmAlias}, EndpointMode: sp.Swarm.EndpointMode,
		StopGracePeriod: &grace, StopSignal: ro.StopSignal, Init: sp.Target.Init, Labels: x.labels,
		Constraints: sp.Swarm.Constraints, Command: programEntrypoint(sp.Target),
		Update: swarm.Update{Parallelism: uint64(ro.Parallelism), Delay: ro.Delay.D(), Order: ro.Order,
			FailureAction: ro.FailureAction, Monitor: ro.Monitor.D()},
	}
	if p := s.healthPath(ro.Healthcheck.Probe); p != "" {
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
func (s *swarmRun) fillRecord(cfg swarm.ServiceConfig, ro *scenarios.Rollout) {
	r := s.rec
	r.Service, r.EndpointMode = cfg.Name, cfg.EndpointMode
	r.Parallelism, r.DelayMs, r.Order, r.FailureAction = ro.Parallelism, ms(ro.Delay.D()), ro.Order, ro.FailureAction
	r.MonitorMs, r.StopGracePeriodMs, r.StopSignal = ms(ro.Monitor.D()), ms(ro.StopGracePeriod.D()), ro.StopSignal
	r.Probe, r.Image = ro.Healthcheck.Probe, ro.Image
	if cfg.Health != nil {
		r.HealthIntervalMs, r.HealthRetries = ms(cfg.Health.Interval), cfg.Health.Retries
	}
}

// healthPath is the path the health check GETs for probe ("" for none).
func (s *swarmRun) healthPath(probe string) string {
	switch probe {
	case scenarios.ProbeReadiness:
		return s.spec.Target.Protocol.ReadyPath
	case scenarios.ProbeLiveness:
		return "/livez"
	}
	return ""
}

// serviceEnv is targetEnv for a task: INSTANCE names the task by its slot
// (a Swarm template), the rest as for a replica.
func (s *swarmRun) serviceEnv() []string {
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
func (s *swarmRun) teardown(ctx context.Context) error {
	var errs []error
	if s.serviceID != "" {
		errs = append(errs, s.sw.RemoveService(ctx, s.serviceID, s.grace()+swarmServiceSlack))
	}
	if _, err := s.r.eng.Sweep(ctx, map[string]string{"shutdownlab.run": s.name}); err != nil {
		if s.network == "" {
			errs = append(errs, err)
		} else {
			errs = append(errs, s.sw.RemoveNetwork(ctx, s.network, swarmNetworkBound))
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
