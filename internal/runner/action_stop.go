package runner

import (
	"context"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Registers this file's action kind with the runner (registry.go).
func init() { actions.register(scenarios.ActionStop, actionDef{deliver: (*run).dockerStop}) }

// dockerStop delivers action kind stop: docker stop -t action.grace_period on
// replica c. docker stop returns only once the container is gone, so it
// runs in parallel and reports on the returned channel: the window is
// measured from the signal. The goroutine owns nothing of rec, so an
// interrupted run never races with it; the call ends with the run's
// context, and has its own bound (stopBound): a daemon that never answers
// must not hang the run.
func (x *run) dockerStop(ctx context.Context, c *docker.Container, rec *record.Action) (chan stopResult, error) {
	a := x.spec.Action
	if a.Timeout != nil {
		t := int(a.Timeout.D() / time.Second)
		rec.StopTimeoutS = &t
	}
	stopped := make(chan stopResult, 1)
	timeout := rec.StopTimeoutS
	sctx, cancel := context.WithTimeout(ctx, x.stopBound())
	rec.SentNs = time.Now().UnixNano()
	go func() {
		defer cancel()
		err := x.r.eng.Stop(sctx, c.ID, timeout)
		stopped <- stopResult{err: err, returnedNs: time.Now().UnixNano()}
	}()
	return stopped, nil
}

// stopBound bounds a docker stop call: its grace period (the action's -t,
// else the target's grace_period, else the engine's 10 s default), the
// observation window and 30 s of slack.
func (x *run) stopBound() time.Duration {
	grace := 10 * time.Second
	switch {
	case x.spec.Action.Timeout != nil:
		grace = x.spec.Action.Timeout.D()
	case x.spec.Target.StopTimeout != nil:
		grace = x.spec.Target.StopTimeout.D()
	}
	return grace + x.spec.Observe.Window.D() + 30*time.Second
}
