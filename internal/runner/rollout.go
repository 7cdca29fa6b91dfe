package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/proxy"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/internal/swarm"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// startDNSProxy starts Caddy for topology caddy on platform swarm: the
// upstreams are the A records of tasks.<service>, re-resolved every
// swarm.dns_refresh, with the scenario's health checks (proxy.json in the
// run directory, as for topology caddy).
func (s *swarmPlatform) startDNSProxy(ctx context.Context, labels map[string]string) error {
	x := s.run
	if x.spec.Topology != scenarios.TopologyCaddy {
		return nil
	}
	name, refresh := "tasks."+s.rec.Service, x.spec.Swarm().DNSRefresh.D()
	cfg, err := proxy.DynamicConfig(x.spec.Proxy, name, x.port(), refresh)
	if err != nil {
		return err
	}
	s.rec.ProxyDNS, s.rec.ProxyRefreshMs = name, ms(refresh)
	_, err = x.runCaddy(ctx, labels, cfg)
	return err
}

// rollout waits for action.at and rolls the whole service (docker service
// update --force, or to action.rollout.image), then waits, at most
// action.rollout.timeout, until every new task runs and every old one has
// ended. A rollout that does not converge (paused by its failure action,
// still updating at the bound) is an observation, recorded; an engine
// that refuses the update makes the run invalid.
func (s *swarmPlatform) rollout(ctx context.Context, loadStart time.Time) error {
	a := s.spec.Action
	if a.Kind != scenarios.ActionRollout {
		return nil
	}
	ro := a.Rollout()
	s.rec.AfterMs = ms(a.At.D())
	if err := sleepUntil(ctx, loadStart.Add(a.At.D())); err != nil {
		return err
	}
	st, err := s.sw.Update(ctx, s.serviceID, swarm.Rollout{Image: ro.Image})
	s.rec.SentNs, s.rec.ReturnedNs = st.SentNs, st.ReturnedNs
	if err != nil {
		s.rec.Error = err.Error()
		return fmt.Errorf("action rollout: %w", err)
	}
	s.forceUpdate, s.rec.ForceUpdate = st.ForceUpdate, st.ForceUpdate
	stopFollowing := s.followNewTasks(ctx)
	c, err := s.sw.WaitConverged(ctx, s.serviceID, s.spec.Replicas, st.ForceUpdate, swarmPoll, ro.Timeout.D())
	stopFollowing()
	s.tasksStarted(ctx, c.Tasks)
	s.rec.Converged, s.rec.ConvergedNs = c.Converged, c.AtNs
	s.rec.UpdateState, s.rec.UpdateMessage = c.UpdateState, c.UpdateMessage
	if err != nil {
		return err
	}
	if !c.Converged {
		s.r.opts.Progress.Logf("rollout did not converge within %s (update %s %s): %s", ro.Timeout, c.UpdateState, c.UpdateMessage, taskStates(c.Tasks))
	}
	return nil
}

// collect reads back the load's records, the service's tasks with their
// containers' state, engine events and lifecycle logs, and the proxy log.
func (s *swarmPlatform) collect(ctx context.Context) error {
	x := s.run
	x.load.collect(&x.meta, x.stream)
	var errs []error
	if s.watch != nil {
		evs, err := s.watch.Stop(killEventGrace)
		for _, e := range evs {
			s.rec.Events = append(s.rec.Events, record.SwarmEvent{TimeNs: e.TimeNs, Action: e.Action,
				ContainerID: e.ContainerID, TaskID: e.TaskID, Signal: e.Signal, ExitCode: e.ExitCode})
		}
		if err != nil {
			s.rec.EventsError = err.Error()
		}
	}
	if s.serviceID != "" {
		tasks, err := s.sw.Tasks(ctx, s.serviceID)
		errs = append(errs, err)
		for _, t := range tasks {
			rt, err := s.collectTask(ctx, t)
			errs = append(errs, err)
			s.rec.Tasks = append(s.rec.Tasks, rt)
		}
	}
	errs = append(errs, x.collectProxy(ctx))
	return errors.Join(errs...)
}

// collectTask builds one task's record: the engine's task, its
// container's inspect data and lifecycle log (saved as
// app-task-<slot>-<gen>-<id>.log), and its engine events.
func (s *swarmPlatform) collectTask(ctx context.Context, t swarm.Task) (record.SwarmTask, error) {
	rt := record.SwarmTask{ID: t.ID, Slot: t.Slot, Generation: record.GenerationNew, DesiredState: t.DesiredState,
		State: t.State, Message: t.Message, Err: t.Err, CreatedNs: nanos(t.CreatedAt), StatusNs: nanos(t.StatusAt),
		ContainerID: t.ContainerID, ExitCode: t.ExitCode}
	if s.forceUpdate == 0 || t.ForceUpdate < s.forceUpdate {
		rt.Generation = record.GenerationOld
	}
	if ip := t.Addrs[s.netID]; ip != "" {
		rt.Upstream = fmt.Sprintf("%s:%d", ip, s.port())
	}
	applyEvents(&rt, s.rec.Events)
	if t.ContainerID == "" {
		return rt, nil
	}
	st, err := s.r.eng.Inspect(ctx, t.ContainerID)
	if err != nil {
		return rt, nil // removed by the engine's task history: the task's own data stands
	}
	rt.StartedNs, rt.FinishedNs = nanos(st.StartedAt), nanos(st.FinishedAt)
	if st.Exited() {
		code := st.ExitCode
		rt.ExitCode = &code
	}
	stdout, stderr, err := s.r.eng.LogsAll(ctx, t.ContainerID)
	if err != nil {
		return rt, err
	}
	rt.Events = parseLifecycle(stdout)
	name := fmt.Sprintf("task-%d-%s-%.12s", t.Slot, rt.Generation, t.ID)
	return rt, os.WriteFile(filepath.Join(s.dir, resultdir.AppLog(name)), append(stdout, stderr...), 0o644)
}

// applyEvents fills a task's signal, kill and health times from its
// container's engine events. Pure.
func applyEvents(rt *record.SwarmTask, evs []record.SwarmEvent) {
	for _, e := range evs {
		if e.ContainerID != rt.ContainerID || rt.ContainerID == "" {
			continue
		}
		switch e.Action {
		case "kill":
			if rt.SignalNs == 0 {
				rt.SignalNs, rt.Signal = e.TimeNs, e.Signal
			} else if e.Signal == 9 && rt.KillNs == 0 {
				rt.KillNs = e.TimeNs
			}
		case swarm.ActionHealthy:
			if rt.HealthyNs == 0 {
				rt.HealthyNs = e.TimeNs
			}
		case swarm.ActionUnhealthy:
			if rt.Unhealthy == 0 {
				rt.UnhealthyNs = e.TimeNs
			}
			rt.Unhealthy++
		}
	}
}

// nanos is t in Unix ns, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
