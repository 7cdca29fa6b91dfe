package targetapp

import (
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// The worker's part of the shutdown, called by Run and Drain; each does
// nothing without WORKER=on.

// workerAtSignal runs at the signal: POOL_CLOSE=first closes the pool now
// (in the background, so the shutdown's other steps are not delayed).
func (a *App) workerAtSignal(signalAt time.Time) {
	if a.worker != nil && a.cfg.Worker.PoolClose == PoolCloseFirst {
		go a.worker.closePool(signalAt, true)
	}
}

// beginWorkerStop starts the worker's stop (full mode, drain step 1).
func (a *App) beginWorkerStop(signalAt time.Time) {
	if a.worker != nil {
		a.worker.beginStop(signalAt)
	}
}

// workerBusy reports whether the worker's stop has not returned yet (or
// not begun).
func (a *App) workerBusy() bool {
	return a.worker != nil && !a.worker.stopped()
}

// workerGiveUp is the drain deadline's account of the worker: it logs
// "worker_stopped" with the jobs still running, unless the stop returned
// first, and returns that number.
func (a *App) workerGiveUp(signalAt time.Time) int {
	if a.worker == nil {
		return 0
	}
	return a.worker.report(signalAt, nil, true)
}

// stopWorkerClose is close mode's stock worker stop, after
// http.Server.Shutdown returned: Client.Stop waiting for running jobs
// however long, then the pool's close.
func (a *App) stopWorkerClose(signalAt time.Time) {
	if a.worker == nil {
		return
	}
	a.worker.beginStop(signalAt)
	<-a.worker.stopDone
	a.worker.closePool(signalAt, false)
}

// closeWorkerPool closes the pool after a completed drain (POOL_CLOSE=last;
// with first it was closed at the signal and this waits for that close).
func (a *App) closeWorkerPool(signalAt time.Time) {
	if a.worker != nil {
		a.worker.closePool(signalAt, false)
	}
}

// exitRecord is the "exit" event for code, with the jobs the exit abandons.
func exitRecord(code int, msg string, jobsRunning int) record.Event {
	e := record.Event{Event: record.EventExit, Code: intp(code), Msg: msg}
	if jobsRunning > 0 {
		e.JobsRunning = intp(jobsRunning)
	}
	return e
}
