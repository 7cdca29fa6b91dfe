package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/swarm"
)

// The run hooks on platform swarm (runhook.go): the tasks' containers run
// on the engine shutdownlab talks to (the agent's node), so the hooks are
// told of them as of replicas, under the task's name: "task-<slot>" for
// the tasks that ran at set-up, "task-<slot>-new" for a rollout's. A
// task's container is told of from the first look that finds it: at
// set-up once the service converged, during a rollout at the poll after
// its start (within swarmPoll), so a hook may miss a new task's first
// moments (the resource sampler its first samples).

// tasksStarted tells the run hooks of every task container not told of
// yet.
func (s *swarmPlatform) tasksStarted(ctx context.Context, tasks []swarm.Task) {
	s.startedMu.Lock()
	defer s.startedMu.Unlock()
	if s.started == nil {
		s.started = map[string]bool{}
	}
	for _, t := range tasks {
		if t.ContainerID == "" || s.started[t.ContainerID] {
			continue
		}
		s.started[t.ContainerID] = true
		s.replicaStarted(ctx, s.taskName(t), t.ContainerID)
	}
}

// taskName names a task in the run's records.
func (s *swarmPlatform) taskName(t swarm.Task) string {
	if s.forceUpdate > 0 && t.ForceUpdate == s.forceUpdate {
		return fmt.Sprintf("task-%d-new", t.Slot)
	}
	return fmt.Sprintf("task-%d", t.Slot)
}

// followNewTasks tells the run hooks of the rollout's new tasks as they
// appear: it reads the service's tasks every swarmPoll until the returned
// stop is called (which waits for it). A failed read is retried at the
// next poll; a task never seen is never told of.
func (s *swarmPlatform) followNewTasks(ctx context.Context) (stop func()) {
	pctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(swarmPoll)
		defer t.Stop()
		for {
			if tasks, err := s.sw.Tasks(pctx, s.serviceID); err == nil {
				s.tasksStarted(ctx, tasks)
			}
			select {
			case <-pctx.Done():
				return
			case <-t.C:
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}
