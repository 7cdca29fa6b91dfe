package swarm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/moby/moby/api/types/swarm"
	"github.com/moby/moby/client"
)

// Task is one task of a service as the engine reports it.
type Task struct {
	// ID is the task id; Slot its replica slot (1-based).
	ID   string
	Slot int
	// DesiredState is what the orchestrator wants ("running",
	// "shutdown"); State what the task is (see swarm.TaskState); Message
	// and Err the engine's words on it.
	DesiredState, State string
	Message, Err        string
	// CreatedAt is when the orchestrator created the task; StatusAt when
	// its current State was reached (the engine's timestamps).
	CreatedAt, StatusAt time.Time
	// ContainerID is its container ("" before one was created); ExitCode
	// the container's exit code once it ended (nil while it runs).
	ContainerID string
	ExitCode    *int
	// ForceUpdate is the service's ForceUpdate counter the task was made
	// under, and Image its image: together they tell old tasks from new.
	ForceUpdate uint64
	Image       string
	// Addrs maps each attached network's id to the task's address on it.
	Addrs map[string]string
}

// Ended reports whether the task reached a terminal state.
func (t Task) Ended() bool {
	switch swarm.TaskState(t.State) {
	case swarm.TaskStateComplete, swarm.TaskStateShutdown, swarm.TaskStateFailed,
		swarm.TaskStateRejected, swarm.TaskStateRemove, swarm.TaskStateOrphaned:
		return true
	}
	return false
}

// Tasks lists the tasks of service id, oldest first.
func (e *Engine) Tasks(ctx context.Context, id string) ([]Task, error) {
	f := client.Filters{}
	f.Add("service", id)
	res, err := e.cli.TaskList(ctx, client.TaskListOptions{Filters: f})
	if err != nil {
		return nil, fmt.Errorf("task list (service %s): %w", id, err)
	}
	out := make([]Task, 0, len(res.Items))
	for _, t := range res.Items {
		out = append(out, taskOf(t))
	}
	slices.SortStableFunc(out, func(a, b Task) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

// taskOf converts the engine's task. Pure.
func taskOf(t swarm.Task) Task {
	out := Task{
		ID: t.ID, Slot: t.Slot, DesiredState: string(t.DesiredState), State: string(t.Status.State),
		Message: t.Status.Message, Err: t.Status.Err, CreatedAt: t.CreatedAt, StatusAt: t.Status.Timestamp,
		ForceUpdate: t.Spec.ForceUpdate, Addrs: map[string]string{},
	}
	if cs := t.Spec.ContainerSpec; cs != nil {
		out.Image = cs.Image
	}
	if c := t.Status.ContainerStatus; c != nil {
		out.ContainerID = c.ContainerID
		if out.Ended() && c.ContainerID != "" {
			code := c.ExitCode
			out.ExitCode = &code
		}
	}
	for _, na := range t.NetworksAttachments {
		for _, a := range na.Addresses {
			if a.IsValid() {
				out.Addrs[na.Network.ID] = a.Addr().String()
			}
		}
	}
	return out
}

// Convergence is a service's state once WaitConverged returned.
type Convergence struct {
	// Converged is true when every wanted task runs the current spec and
	// every other task has ended.
	Converged bool
	// UpdateState is the engine's update status ("completed", "paused",
	// "rollback_completed", ...; "" when the service was never updated)
	// and UpdateMessage its message.
	UpdateState, UpdateMessage string
	// AtNs is when convergence was seen (0 when it was not).
	AtNs int64
	// Tasks are the tasks as last read.
	Tasks []Task
}

// converged says whether tasks show want running tasks of generation
// forceUpdate and nothing else still alive. Pure.
func converged(tasks []Task, want int, forceUpdate uint64) bool {
	running := 0
	for _, t := range tasks {
		switch {
		case t.DesiredState == string(swarm.TaskStateRunning) && t.State == string(swarm.TaskStateRunning) && t.ForceUpdate == forceUpdate:
			running++
		case !t.Ended():
			return false
		}
	}
	return running == want
}

// WaitConverged polls service id every poll until want tasks of
// generation forceUpdate run and every other task has ended, or bound
// passes (then Converged is false: not an error), or the update stopped
// (paused, rolled back). Errors are the engine's.
func (e *Engine) WaitConverged(ctx context.Context, id string, want int, forceUpdate uint64, poll, bound time.Duration) (Convergence, error) {
	wctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var c Convergence
	for {
		tasks, err := e.Tasks(ctx, id)
		if err != nil {
			return c, err
		}
		c.Tasks = tasks
		svc, err := e.Service(ctx, id)
		if err != nil {
			return c, err
		}
		if us := svc.UpdateStatus; us != nil {
			c.UpdateState, c.UpdateMessage = string(us.State), us.Message
		}
		if converged(tasks, want, forceUpdate) {
			c.Converged, c.AtNs = true, time.Now().UnixNano()
			return c, nil
		}
		switch swarm.UpdateState(c.UpdateState) {
		case swarm.UpdateStatePaused, swarm.UpdateStateRollbackCompleted, swarm.UpdateStateRollbackPaused:
			return c, nil
		}
		t := time.NewTimer(poll)
		select {
		case <-t.C:
		case <-wctx.Done():
			t.Stop()
			if ctx.Err() != nil {
				return c, ctx.Err()
			}
			return c, nil
		}
	}
}

// ErrNotConverged is returned (wrapped) by callers that need convergence.
var ErrNotConverged = errors.New("service did not converge")
