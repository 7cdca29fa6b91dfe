package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Registers this file's action kind with the runner (registry.go).
func init() {
	actions.register(scenarios.ActionTerminate, actionDef{deliver: (*run).terminate, at: (*run).terminateAt})
}

// killSlack bounds the SIGKILL schedule beyond its own time: the inspect
// and kill calls.
const killSlack = 30 * time.Second

// execer is what a pre-stop exec hook needs of the engine beyond engine
// (*docker.Engine has it; an engine without it records the hook as
// failed, as the kubelet does when a hook cannot run).
type execer interface {
	Exec(ctx context.Context, id string, cmd []string, timeout time.Duration) (int, []byte, []byte, error)
}

// terminateAt is action kind terminate at action.at: the pod's deletion
// (terminate), after a rolling update's new pod is available when it
// starts first (beforeDeletion), and then the proxy's deregistration and
// the new pod's joining awaited, each bounded by its own steps.
func (x *run) terminateAt(ctx context.Context, loadStart time.Time) error {
	err := x.beforeDeletion(ctx, loadStart)
	if err == nil {
		err = x.fire(ctx, scenarios.ActionTerminate)
	}
	if derr := x.finishDeregister(ctx); err == nil {
		err = derr
	}
	if nerr := x.finishNewPod(ctx); err == nil {
		err = nerr
	}
	return err
}

// terminate emulates the kubelet's termination of the acted-on replica c
// (action kind terminate; internal/kube.Schedule): T0 is the pod's
// deletion, from which the proxy deregistration is timed; the pre-stop
// hook runs, waited for at most the grace period; the stop signal follows
// at once (rec.SentNs, so the phase metrics are timed from the signal as
// for every kind); SIGKILL is sent at the schedule's time if the replica
// still runs, by the returned channel's goroutine.
func (x *run) terminate(ctx context.Context, c *docker.Container, rec *record.Action) (chan stopResult, error) {
	t := x.spec.Action.Terminate()
	grace := t.Grace.D()
	te := &record.Termination{GraceS: int(grace / time.Second)}
	rec.SetPart(te)
	// Resolved before the deletion: the kubelet sends the signal the
	// moment the hook returns, whether it ran or failed, so nothing of the
	// harness's own may come between them.
	te.Signal = x.stopSignal(ctx, t.StopSignal)
	t0 := time.Now()
	te.DeletedNs = t0.UnixNano()
	x.startDeregister(ctx, te.DeletedNs)
	var took time.Duration
	if t.PreStop != nil && grace > 0 {
		te.Hook = x.runHook(ctx, c, t.PreStop, grace, t0)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if te.Hook.Failed() {
			x.r.opts.Progress.Logf("%s: %s: the kubelet records FailedPreStopHook and sends the stop signal at once", c.Name, te.Hook.Failure())
		}
		took = time.Unix(0, te.Hook.EndNs).Sub(t0)
	}
	sched := kube.Schedule(grace, te.Hook != nil, took)
	te.Extended, te.KillAtNs = sched.Extended, t0.Add(sched.Kill).UnixNano()
	rec.Signal = te.Signal
	rec.SentNs = time.Now().UnixNano()
	err := x.r.eng.Kill(ctx, c.ID, te.Signal)
	rec.ReturnedNs = time.Now().UnixNano()
	if err != nil {
		// A hook may stop the app itself (an exec of "nginx -s quit"): the
		// runtime's stop of an exited container is no error, and neither
		// is it here.
		if st, ierr := x.r.eng.Inspect(ctx, c.ID); ierr != nil || st.Running {
			return nil, err
		}
		te.ExitedBeforeSignal = true
	}
	killAt := time.Unix(0, te.KillAtNs)
	kctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), killAt.Add(killSlack))
	ch := make(chan stopResult, 1)
	// The goroutine owns nothing of rec: it reports on the channel, so an
	// interrupted run never races with it.
	go func() {
		defer cancel()
		sent, err := x.killAt(kctx, ctx, c.ID, killAt)
		ch <- stopResult{err: err, killSentNs: sent}
	}()
	return ch, nil
}

// killAt sends SIGKILL at t to a replica still running then, and returns
// when it was sent (0: it had exited, or the run was interrupted: stop is
// the run's own context); it returns as soon as the replica exits.
func (x *run) killAt(ctx, stop context.Context, id string, t time.Time) (int64, error) {
	// A replica that exits first needs no SIGKILL: the run need not wait
	// for t then (the grace period is often 30 s).
	if exited, _, err := x.r.eng.WaitExit(stop, id, time.Until(t)); err == nil && exited {
		return 0, nil
	}
	if err := sleepUntil(stop, t); err != nil {
		return 0, nil
	}
	st, err := x.r.eng.Inspect(ctx, id)
	if err != nil || !st.Running {
		return 0, err
	}
	sent := time.Now().UnixNano()
	return sent, x.r.eng.Kill(ctx, id, "SIGKILL")
}

// stopSignal is the termination's stop signal: lifecycle.stopSignal, else
// the image's STOPSIGNAL, else SIGTERM (the runtime's default).
func (x *run) stopSignal(ctx context.Context, set string) string {
	if set != "" {
		return set
	}
	if info, err := x.r.eng.ImageInfo(ctx, x.target.ref); err == nil {
		sig, _ := scenarios.ImageStopSignal(info.StopSignal)
		return sig
	}
	return "SIGTERM"
}

// runHook runs the pre-stop hook h in replica c, waiting at most grace
// from t0; a hook still running then is left to itself (the kubelet sends
// the signal anyway). A hook that fails (executePreStopHook: the handler
// returned an error) ends when it returned: the kubelet records
// FailedPreStopHook and goes on to the stop signal at once.
func (x *run) runHook(ctx context.Context, c *docker.Container, h *scenarios.PreStop, grace time.Duration, t0 time.Time) *record.HookRun {
	deadline := t0.Add(grace)
	hctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	run := &record.HookRun{}
	var err error
	switch {
	case h.Sleep != nil:
		run.Kind, run.SleepMs = "sleep", ms(h.Sleep.D())
		err = sleepUntil(hctx, t0.Add(h.Sleep.D()))
	case h.Exec != nil:
		run.Kind, run.Command = "exec", h.Exec
		run.Code, run.Output, err = x.execHook(hctx, c.ID, h.Exec, grace)
	case h.HTTPGet != nil:
		run.Kind, run.Path, run.Port = "http_get", h.HTTPGet.Path, h.HTTPGet.Port
		run.Code, err = x.httpHook(hctx, c.ID, h.HTTPGet)
	}
	run.EndNs = time.Now().UnixNano()
	if errors.Is(hctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		run.TimedOut, run.EndNs, err = true, deadline.UnixNano(), nil
	}
	if err != nil {
		run.Error = err.Error()
	}
	return run
}

// execHook runs an exec hook's command in the container and returns its
// exit code and output (record.HookOutput). As the kubelet's exec
// (ExecSync: a non-zero exit is an error), a command that exits non-zero
// or cannot be started fails the hook.
func (x *run) execHook(ctx context.Context, id string, cmd []string, grace time.Duration) (int, string, error) {
	ex, ok := x.r.eng.(execer)
	if !ok {
		return 0, "", errors.New("this engine cannot exec in a container")
	}
	code, stdout, stderr, err := ex.Exec(ctx, id, cmd, grace)
	out := record.HookOutput(stdout, stderr)
	if err == nil && code != 0 {
		err = fmt.Errorf("exit code %d", code)
	}
	return code, out, err
}

// httpHook GETs an http_get hook's path from the replica's address on
// the run's network (the harness's own container). As the kubelet's
// runHTTPHandler, only a request that got no answer fails the hook: the
// status is recorded, not judged.
func (x *run) httpHook(ctx context.Context, id string, h *scenarios.HTTPGetHook) (int, error) {
	port := h.Port
	if port == 0 {
		port = x.port()
	}
	code, err := x.getFromNetwork(ctx, id, port, h.Path)
	if errors.Is(err, errNotReady) {
		err = nil
	}
	return code, err
}

// getFromNetwork GETs path on port of container id from its address on
// the run's network, as the kubelet reaches a pod's IP: an error unless
// the status is in 200..399.
func (x *run) getFromNetwork(ctx context.Context, id string, port int, path string) (int, error) {
	st, err := x.r.eng.Inspect(ctx, id)
	if err != nil {
		return 0, err
	}
	ip := st.IP(x.obj.network)
	if ip == "" {
		return 0, fmt.Errorf("the replica has no address on network %s", x.obj.network)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+ip+":"+strconv.Itoa(port)+path, nil)
	if err != nil {
		return 0, err
	}
	resp, err := podClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		return resp.StatusCode, fmt.Errorf("status %d: %w", resp.StatusCode, errNotReady)
	}
	return resp.StatusCode, nil
}

// podClient is how the harness GETs from a pod, as the kubelet's probes
// and hooks do: straight to its address (never through an HTTP_PROXY of
// the environment), a new connection each time, redirects followed.
var podClient = &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
