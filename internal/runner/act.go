package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
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

// observation is how the acted-on replica ended within the window.
type observation struct {
	done   bool // the window was observed
	exited bool
	state  docker.State
}

// act waits for the planned moment, fires the action at the target replica
// and observes it for the scenario's window. A roll wraps that in its
// replacement strategy (see roll).
func (x *run) act(ctx context.Context, loadStart time.Time) error {
	a := x.spec.Action
	if a.Kind == scenarios.ActionNone {
		return nil
	}
	// Watch the engine's kill events from before the action: they bound,
	// by measurement, when the signal reached the replica (docker stop's
	// return says nothing about that).
	if w, err := x.r.eng.WatchKills(ctx, x.replica(a.Replica).ID); err != nil {
		x.killsErr = err.Error()
	} else {
		x.kills = w
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
	switch a.Kind {
	case scenarios.ActionRoll:
		return x.roll(ctx)
	case scenarios.ActionTerminate:
		err := x.beforeDeletion(ctx, loadStart)
		if err == nil {
			err = x.fire(ctx, a.Kind)
		}
		if derr := x.finishDeregister(ctx); err == nil {
			err = derr
		}
		if nerr := x.finishNewPod(ctx); err == nil {
			err = nerr
		}
		return err
	}
	return x.fire(ctx, a.Kind)
}

// recordKills stores the engine's kill events seen so far in rec.
func (x *run) recordKills(rec *record.Action) {
	if x.kills == nil {
		rec.KillsError = x.killsErr
		return
	}
	kills, err := x.kills.Stop(killEventGrace)
	for _, k := range kills {
		rec.Kills = append(rec.Kills, record.Kill{TimeNs: k.TimeNs, Signal: k.Signal})
	}
	if err != nil {
		rec.KillsError = err.Error()
	}
}

// fire sends the stop action of the given kind (signal or stop) to the
// acted-on replica and observes its exit within the window.
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
	var stopped chan stopResult
	switch kind {
	case scenarios.ActionSignal:
		rec.SentNs = time.Now().UnixNano()
		err = eng.Kill(ctx, c.ID, a.Signal)
		rec.ReturnedNs = time.Now().UnixNano()
	case scenarios.ActionStop:
		if a.Timeout != nil {
			t := int(a.Timeout.D() / time.Second)
			rec.StopTimeoutS = &t
		}
		// docker stop returns only once the container is gone; observe in
		// parallel so the window is measured from the signal.
		// The goroutine owns nothing of rec: it reports back on the channel,
		// so an interrupted run never races with it.
		// It gets its own bound (grace period + window + slack): a daemon
		// that never answers must not hang the run.
		stopped = make(chan stopResult, 1)
		timeout := rec.StopTimeoutS
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), x.stopBound())
		defer cancel()
		rec.SentNs = time.Now().UnixNano()
		go func() {
			err := eng.Stop(sctx, c.ID, timeout)
			stopped <- stopResult{err: err, returnedNs: time.Now().UnixNano()}
		}()
	case scenarios.ActionTerminate:
		stopped, err = x.terminate(ctx, c, rec)
	default:
		return fmt.Errorf("unknown action kind %q", kind)
	}
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
			if te := rec.Termination; te != nil {
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

// stopBound bounds a docker stop call: its grace period (the action's -t,
// else the target's stop_timeout, else the engine's 10 s default), the
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

// awaitAgent waits for the load agent to finish its load and exit 0.
func (x *run) awaitAgent(ctx context.Context, loadStart time.Time) error {
	eng := x.r.eng
	bound := x.load.bound(x.spec) + agentExitSlack
	deadline := loadStart.Add(bound)
	exited, st, err := eng.WaitExit(ctx, x.agent.ID, max(time.Until(deadline), time.Second))
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
func (x *run) stopAgent(ctx context.Context) {
	if x.agent == nil {
		return
	}
	eng := x.r.eng
	if err := eng.Kill(ctx, x.agent.ID, "SIGTERM"); err != nil {
		return // already gone
	}
	if exited, _, err := eng.WaitExit(ctx, x.agent.ID, agentDrain+5*time.Second); err == nil && !exited {
		_ = eng.Kill(ctx, x.agent.ID, "SIGKILL")
	}
}

// collect reads back what the run produced: each replica's state, logs,
// lifecycle events, ledger and job log, and the agent's summary.
func (x *run) collect(ctx context.Context) error {
	eng := x.r.eng
	var errs []error
	for i, c := range x.replicas {
		alias := fmt.Sprintf("replica-%d", i)
		rep := record.Replica{Name: alias, Image: x.targetRef, Runtime: x.runtime, Init: x.spec.Target.Init, Env: envMap(x.targetEnv(i)),
			EnvOverridden: envOverrides(x.imageEnv, x.spec.Target.Env)}
		st, err := eng.Inspect(ctx, c.ID)
		if err != nil {
			errs = append(errs, err)
			x.meta.Replicas = append(x.meta.Replicas, rep)
			continue
		}
		rep.StopTimeoutS = st.StopTimeout
		rep.Init = st.Init
		acted := x.meta.Action != nil && i == x.meta.Action.Replica && x.obs.done
		exited, final := st.Exited(), st
		stopped := x.stoppedNs[i] // stopped for the ledger: running until then
		switch {
		case acted:
			exited, final = x.obs.exited, x.obs.state
		case stopped > 0:
			exited = false
		}
		if exited {
			code := final.ExitCode
			rep.Exited, rep.ExitCode = true, &code
			rep.ExitedNs = final.FinishedAt.UnixNano()
			rep.OOMKilled = final.OOMKilled
		}
		stdout, stderr, err := eng.LogsAll(ctx, c.ID)
		if err != nil {
			errs = append(errs, err)
		}
		rep.Events = eventsBefore(parseLifecycle(stdout), stopped)
		errs = append(errs, os.WriteFile(filepath.Join(x.dir, resultdir.AppLog(alias)), append(stdout, stderr...), 0o644))
		rep.Ledger, err = x.readBack(ctx, c.ID, path.Join(record.DefaultDataDir, record.LedgerFile), resultdir.LedgerLog(alias))
		errs = append(errs, err)
		rep.HandlerJobLog, err = x.readBack(ctx, c.ID, path.Join(record.DefaultDataDir, record.HandlerJobFile), resultdir.HandlerJobLog(alias))
		errs = append(errs, err)
		x.meta.Replicas = append(x.meta.Replicas, rep)
	}
	errs = append(errs, x.collectProxy(ctx))
	x.load.collect(&x.meta, x.stream)
	return errors.Join(errs...)
}

// readBack copies a file out of a container into the run directory; a file
// the target never wrote is normal and yields nothing.
func (x *run) readBack(ctx context.Context, id, path, saveAs string) ([]string, error) {
	b, err := x.r.eng.CopyFileFrom(ctx, id, path)
	if errors.Is(err, docker.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(x.dir, saveAs), b, 0o644); err != nil {
		return nil, err
	}
	return splitLines(b), nil
}

// teardown removes every container and the network of this run.
func (x *run) teardown(ctx context.Context) error {
	_, err := x.r.eng.Sweep(ctx, map[string]string{"shutdownlab.run": x.name})
	return err
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
