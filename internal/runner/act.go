package runner

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// stopResult is how a stop that outlives its call ended: docker stop's
// return, or a termination's SIGKILL schedule.
type stopResult struct {
	err error
	// returnedNs is when docker stop returned (0: not a docker stop).
	returnedNs int64
	// killSentNs is when a termination's SIGKILL was sent (0: none).
	killSentNs int64
}

// killWatch watches the acted-on replica's engine kill events from
// before the action: w, or, when the event stream was unavailable, why
// (err).
type killWatch struct {
	w   *docker.KillWatch
	err string
}

// observation is how the acted-on replica ended within the window.
type observation struct {
	done   bool // the window was observed
	exited bool
	state  docker.State
}

// act runs the action.before steps, waits for the planned moment and
// performs the scenario's action kind (its entry in actions): by default it
// fires the kind's stop at the acted-on replica and observes it for the
// scenario's window; a kind with its own at (roll, terminate) wraps that
// in its own steps.
func (x *run) act(ctx context.Context, loadStart time.Time) error {
	a := x.spec.Action
	if a.Kind == scenarios.ActionNone {
		return nil
	}
	do, ok := actions.lookup(a.Kind)
	if !ok {
		return fmt.Errorf("action kind %q: the runner has no entry for it (actions, action.go)", a.Kind)
	}
	// Watch the engine's kill events from before the action: they bound,
	// by measurement, when the signal reached the replica (docker stop's
	// return says nothing about that).
	if w, err := x.r.eng.WatchKills(ctx, x.replica(a.Replica).ID); err != nil {
		x.caps.kills = &killWatch{err: err.Error()}
	} else {
		x.caps.kills = &killWatch{w: w}
		defer w.Stop(0)
	}
	// The steps before the action (action.before), then the action.
	defer x.keepSteps()
	if err := x.runSteps(ctx, loadStart); err != nil {
		return err
	}
	if err := sleepUntil(ctx, loadStart.Add(a.At.D())); err != nil {
		return err
	}
	if do.at != nil {
		return do.at(x, ctx, loadStart)
	}
	return x.fire(ctx, a.Kind)
}

// recordKills stores the engine's kill events seen so far in rec.
func (x *run) recordKills(rec *record.Action) {
	kw := x.caps.kills
	if kw == nil {
		kw = &killWatch{}
	}
	if kw.w == nil {
		rec.KillsError = kw.err
		return
	}
	kills, err := kw.w.Stop(killEventGrace)
	for _, k := range kills {
		rec.Kills = append(rec.Kills, record.Kill{TimeNs: k.TimeNs, Signal: k.Signal})
	}
	if err != nil {
		rec.KillsError = err.Error()
	}
}

// fire sends the stop of the given kind (its deliver in actions: signal,
// stop, terminate) to the acted-on replica and observes its exit within the
// window.
func (x *run) fire(ctx context.Context, kind scenarios.ActionKind) error {
	a := x.spec.Action
	eng := x.r.eng
	c := x.replica(a.Replica)
	st, err := eng.Inspect(ctx, c.ID)
	if err != nil {
		return err
	}
	if !st.Running {
		return invalidf("replica %d exited before the action (code %d)", a.Replica, st.ExitCode)
	}
	rec := &record.Action{Kind: string(kind), Signal: a.Signal, Replica: a.Replica, AfterMs: ms(a.At.D()),
		Roll: a.Kind == scenarios.ActionRoll}
	x.meta.Action = rec
	do, ok := actions.lookup(kind)
	if !ok || do.deliver == nil {
		return fmt.Errorf("action kind %q does not stop a replica itself", kind)
	}
	stopped, err := do.deliver(x, ctx, c, rec)
	if err != nil {
		rec.Error = err.Error()
		return fmt.Errorf("action %s: %w", kind, err)
	}
	x.startDeregister(ctx, rec.SentNs) // proxy.deregister_after, timed from the signal
	waitAgain := x.startAgain(ctx, c.ID, rec.SentNs)
	sent := time.Unix(0, rec.SentNs)
	window := x.spec.Observe.Window.D() - time.Since(sent)
	exited, st, werr := eng.WaitExit(ctx, c.ID, max(window, 0))
	if werr == nil && exited && st.FinishedAt.Sub(sent) > x.spec.Observe.Window.D() {
		exited = false // ended after the window: NEVER within it
	}
	x.obs = observation{done: werr == nil, exited: exited, state: st}
	rec.Again = waitAgain() // before its kill event is collected
	x.recordKills(rec)
	rec.Kills = splitAgain(rec.Again, rec.Kills)
	if stopped != nil {
		select {
		case res := <-stopped:
			if res.returnedNs != 0 { // docker stop's return; a termination's kill call returned already
				rec.ReturnedNs = res.returnedNs
			}
			if te := rec.Termination(); te != nil {
				te.KillSentNs = res.killSentNs
			}
			if res.err != nil {
				rec.Error = res.err.Error()
				return fmt.Errorf("action %s: %w", kind, res.err)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return werr
}

// awaitAgent waits for the load agent to finish its load and exit 0.
func (x *run) awaitAgent(ctx context.Context, ap agentProc, loadStart time.Time) error {
	bound := x.load.bound(x.spec) + agentExitSlack
	deadline := loadStart.Add(bound)
	exited, st, err := ap.waitExit(ctx, max(time.Until(deadline), time.Second))
	if err != nil {
		return err
	}
	if !exited {
		return invalidf("%s still running %s after its load should have ended", x.load.name(), bound)
	}
	if st.ExitCode != 0 {
		tail := "see " + agentLogFile
		if lines := x.stream.StderrTail(); len(lines) > 0 {
			tail = "last lines: " + strings.Join(lines, " | ")
		}
		if st.OOMKilled {
			tail = fmt.Sprintf("OOM-killed at its %d MiB limit: raise limits.memory_mb; %s", x.limits().MemoryMB, tail)
		}
		return invalidf("%s exited with code %d (%s)", x.load.name(), st.ExitCode, tail)
	}
	return nil
}

// stopAgent asks the agent to stop (SIGTERM: it stops starting requests,
// waits for in-flight ones, prints its summary), then kills it if needed.
func (x *run) stopAgent(ctx context.Context, ap agentProc) {
	if ap == nil {
		return
	}
	if err := ap.signal(ctx, "SIGTERM"); err != nil {
		return // already gone
	}
	if exited, _, err := ap.waitExit(ctx, agentDrain+5*time.Second); err == nil && !exited {
		_ = ap.signal(ctx, "SIGKILL")
	}
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// runLine is the one-line outcome printed after each run; load is what
// its load driver says of it (loadDriver.outcome).
func runLine(m record.Meta, load string) string {
	if !m.Valid {
		return "INVALID: " + m.InvalidReason
	}
	s := load
	if m.Action != nil && len(m.Replicas) > m.Action.Replica {
		rep := m.Replicas[m.Action.Replica]
		if rep.Exited {
			s += fmt.Sprintf(", exit %d after %.0f ms", *rep.ExitCode, float64(rep.ExitedNs-m.Action.SentNs)/1e6)
		} else {
			s += ", NEVER exited within the window"
		}
	}
	return s
}
