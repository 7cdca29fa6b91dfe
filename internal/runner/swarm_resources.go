package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/swarm"
)

// Resource sampling on platform swarm: the tasks' containers run on the
// engine shutdownlab talks to (the agent's node), so they are sampled as
// replicas are (resources.go), under the task's name: "task-<slot>" for
// the tasks that ran at set-up, "task-<slot>-new" for a rollout's. A
// task's container is sampled from the first look that finds it: at
// set-up once the service converged, during a rollout at the poll after
// its start (within swarmPoll), so a new task's first samples may be
// missing.

// sampleTasks starts sampling every task container not sampled yet.
func (s *swarmPlatform) sampleTasks(ctx context.Context, tasks []swarm.Task) {
	s.sampledMu.Lock()
	defer s.sampledMu.Unlock()
	if s.sampled == nil {
		s.sampled = map[string]bool{}
	}
	for _, t := range tasks {
		if t.ContainerID == "" || s.sampled[t.ContainerID] {
			continue
		}
		s.sampled[t.ContainerID] = true
		s.sampleContainer(ctx, s.taskName(t), t.ContainerID)
	}
}

// taskName names a task's samples.
func (s *swarmPlatform) taskName(t swarm.Task) string {
	if s.forceUpdate > 0 && t.ForceUpdate == s.forceUpdate {
		return fmt.Sprintf("task-%d-new", t.Slot)
	}
	return fmt.Sprintf("task-%d", t.Slot)
}

// followNewTasks samples the rollout's new tasks as they appear: it reads
// the service's tasks every swarmPoll until the returned stop is called
// (which waits for it). A failed read is retried at the next poll; the
// samples of a task never seen are simply absent.
func (s *swarmPlatform) followNewTasks(ctx context.Context) (stop func()) {
	pctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(swarmPoll)
		defer t.Stop()
		for {
			if tasks, err := s.sw.Tasks(pctx, s.serviceID); err == nil {
				s.sampleTasks(ctx, tasks)
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
