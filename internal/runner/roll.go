package runner

import (
	"context"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Registers this file's action kind with the runner (registry.go).
func init() { actions.register(scenarios.ActionRoll, actionDef{at: (*run).rollAt}) }

// roll rolls replica A (action.replica) behind the proxy:
//   - replacement none: stop A (roll.via) and observe its exit;
//   - start-first: start the replacement, wait until it logged "up" and one
//     health-check interval has passed (so the proxy has checked it), then
//     stop A and observe;
//   - stop-first: stop A, observe its exit (at most the window), then start
//     the replacement and wait until it is up.
//
// The replacement is replica-N (N = replicas), an upstream of the proxy
// configuration from the start; it is recorded in Meta.Replacement and,
// like every replica, its log and ledger are collected.
//
// With proxy.deregister_after, the acted-on replica is also removed from
// the proxy's upstreams that long after its stop signal (deregister.go);
// the roll waits for that before it returns.
func (x *run) roll(ctx context.Context) error {
	err := x.rollReplace(ctx)
	if derr := x.finishDeregister(ctx); err == nil {
		err = derr
	}
	return err
}

// rollAt is action kind roll's entry in actions.
func (x *run) rollAt(ctx context.Context, _ time.Time) error { return x.roll(ctx) }

// rollReplace stops replica A within its replacement strategy (see roll).
func (x *run) rollReplace(ctx context.Context) error {
	a := x.spec.Action
	switch a.Roll.Replacement {
	case scenarios.ReplaceStartFirst:
		if err := x.startReplacement(ctx, true); err != nil {
			return err
		}
		return x.fire(ctx, a.Roll.Via)
	case scenarios.ReplaceStopFirst:
		if err := x.fire(ctx, a.Roll.Via); err != nil {
			return err
		}
		return x.startReplacement(ctx, false)
	default:
		return x.fire(ctx, a.Roll.Via)
	}
}

// startReplacement starts the replacement replica and waits for its "up"
// line; with settle it also waits one health-check interval after that.
func (x *run) startReplacement(ctx context.Context, settle bool) error {
	i := x.spec.Replicas
	rep := &record.Replacement{Name: replicaAlias(i), Strategy: string(x.spec.Action.Roll.Replacement)}
	x.meta.Replacement = rep
	rep.StartedNs = time.Now().UnixNano()
	c, err := x.startReplica(ctx, i, x.obj.labels)
	if err != nil {
		return err
	}
	if err := x.waitUp(ctx, c); err != nil {
		return err
	}
	for _, e := range x.eventsOf(ctx, c.ID) {
		if e.Event == record.EventUp {
			rep.UpNs = e.TimeNs
			break
		}
	}
	if rep.UpNs == 0 {
		rep.UpNs = time.Now().UnixNano()
	}
	healthy := time.Unix(0, rep.UpNs).Add(x.spec.Proxy.HealthInterval.D())
	rep.HealthyByNs = healthy.UnixNano()
	if settle {
		return sleepUntil(ctx, healthy)
	}
	return nil
}

// eventsOf reads a container's lifecycle events so far (nil on error).
func (x *run) eventsOf(ctx context.Context, id string) []record.Event {
	stdout, _, err := x.r.eng.LogsAll(ctx, id)
	if err != nil {
		return nil
	}
	return parseLifecycle(stdout)
}
