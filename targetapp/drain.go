package targetapp

import (
	"context"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// DrainResult is how a full-mode drain ended.
type DrainResult struct {
	// Drained is true when nothing was left: no request in flight, no open
	// connection, no running job. False means the deadline came first.
	Drained bool
	// Elapsed is the time from the signal until the drain ended.
	Elapsed time.Duration
	// Inflight is the number of /slow, /write and /db requests still in flight.
	Inflight int
	// Conns is the number of connections still open.
	Conns int
	// WSConns is the number of /events streams still open (hijacked
	// connections, not in Conns).
	WSConns int
	// JobRunning tells whether a job was still running; JobStep and JobSteps
	// say how far it (or the last job) got.
	JobRunning bool
	JobStep    int
	JobSteps   int
	// WorkerBusy tells whether the queue worker's stop had not returned
	// (WORKER=on); JobsRunning is the number of queue jobs the deadline
	// abandoned (their worker_stopped account).
	WorkerBusy  bool
	JobsRunning int
}

// BeginDrain is step 1: /readyz turns 503 (/livez stays 200) and
// "ready_false" is logged. It reports false, and does nothing, when the
// drain had already begun.
func (a *App) BeginDrain() bool {
	a.mu.Lock()
	if a.draining {
		a.mu.Unlock()
		return false
	}
	a.draining = true
	a.mu.Unlock()
	a.ready.Store(false)
	a.log.Log(record.Event{Event: record.EventReadyFalse})
	return true
}

// Drain runs the five steps (full mode) for a signal received at signalAt:
// BeginDrain, and with WORKER=on the worker's stop (worker_stopping);
// wait PreStop while serving; close the listener; disable keep-alives and
// sweep idle connections every Sweep, and retire the /events streams
// (retireStreams); wait for in-flight requests, open connections, streams,
// the running job and the worker's stop. It logs "drained" or, when ctx
// ends first (the DRAIN_MS deadline), "deadline" (and "job_abandoned" if a
// job runs, "worker_stopped" with the queue jobs still running), and
// returns the result. Drain does not exit and does not log "exit"; Run
// does.
func (a *App) Drain(ctx context.Context, signalAt time.Time) DrainResult {
	a.BeginDrain()
	a.beginWorkerStop(signalAt)
	if !sleepCtx(ctx, a.cfg.PreStop) {
		return a.deadline(signalAt)
	}
	a.closeListener()
	a.log.Log(record.Event{Event: record.EventListenerClosed})
	// Responses now carry "Connection: close". SetKeepAlivesEnabled(false)
	// also closes idle connections once; the sweep repeats that.
	a.srv.SetKeepAlivesEnabled(false)
	a.sweep(a.cfg.Sweep)
	a.retireStreams(signalAt)
	tick := time.NewTicker(a.cfg.Sweep)
	defer tick.Stop()
	for {
		if r := a.status(signalAt); r.Inflight == 0 && r.Conns == 0 && r.WSConns == 0 && !r.JobRunning && !r.WorkerBusy {
			r.Drained = true
			a.log.Log(record.Event{Event: record.EventDrained, Ms: msp(r.Elapsed)})
			return r
		}
		select {
		case <-ctx.Done():
			return a.deadline(signalAt)
		case <-a.changed:
		case <-tick.C:
			a.sweep(a.cfg.Sweep)
		}
	}
}

// status snapshots the counters.
func (a *App) status(signalAt time.Time) DrainResult {
	ws, busy := a.WSConns(), a.workerBusy()
	a.mu.Lock()
	defer a.mu.Unlock()
	return DrainResult{
		WSConns:    ws,
		WorkerBusy: busy,
		Elapsed:    a.now().Sub(signalAt),
		Inflight:   a.inflight,
		Conns:      len(a.conns),
		JobRunning: a.job.running,
		JobStep:    a.job.step,
		JobSteps:   a.job.steps,
	}
}

// deadline logs what the deadline abandoned.
func (a *App) deadline(signalAt time.Time) DrainResult {
	r := a.status(signalAt)
	a.log.Log(record.Event{Event: record.EventDeadline, Ms: msp(r.Elapsed), Inflight: intp(r.Inflight),
		HandlerJobStep: intp(r.JobStep), HandlerJobSteps: intp(r.JobSteps)})
	a.logAbandoned(r)
	r.JobsRunning = a.workerGiveUp(signalAt)
	return r
}

func (a *App) logAbandoned(r DrainResult) {
	if r.WSConns > 0 {
		a.log.Log(record.Event{Event: record.EventWSAbandoned, Conns: intp(r.WSConns)})
	}
	if r.JobRunning {
		a.log.Log(record.Event{Event: record.EventHandlerJobAbandoned, HandlerJobStep: intp(r.JobStep), HandlerJobSteps: intp(r.JobSteps)})
	}
}

// StockShutdown is close mode: the stock http.Server.Shutdown with
// context.Background() (no readiness flip, no pre-stop wait, no deadline,
// the job not awaited). It logs "listener_closed" when Shutdown has closed
// the listener, "shutdown_returned" with the time since signalAt, and
// "job_abandoned" if a job still runs.
func (a *App) StockShutdown(signalAt time.Time) error {
	a.mu.Lock()
	a.lnClosed = true
	a.mu.Unlock()
	logged := make(chan struct{})
	// Shutdown runs this in a goroutine right after closing the listener.
	a.srv.RegisterOnShutdown(func() {
		a.log.Log(record.Event{Event: record.EventListenerClosed})
		close(logged)
	})
	err := a.srv.Shutdown(context.Background())
	<-logged // keep the log in order: listener_closed before shutdown_returned
	r := a.status(signalAt)
	ev := record.Event{Event: record.EventShutdownReturned, Ms: msp(r.Elapsed)}
	if err != nil {
		ev.Msg = err.Error()
	}
	a.log.Log(ev)
	a.logAbandoned(r)
	return err
}
