package targetapp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// ErrJobRunning is StartJob's answer while a job is running: the app runs
// one background job at a time (/job answers 409).
var ErrJobRunning = errors.New("a job is already running")

// jobState is the background job's progress; guarded by App.mu.
type jobState struct {
	running bool
	step    int // steps completed (fsynced)
	steps   int
}

// JobStatus reports whether a job is running and how far the last job got:
// step is the number of "step i/N" lines fsynced so far, steps is N.
func (a *App) JobStatus() (running bool, step, steps int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.job.running, a.job.step, a.job.steps
}

// StartJob starts the background job: for i = 1..steps it waits stepDur,
// then appends "step i/steps" to job.log and fsyncs; then it appends
// "COMMIT" and fsyncs. It returns at once; ErrJobRunning if a job runs.
// The job is not tied to any request; only Close (or process exit) stops
// it early.
func (a *App) StartJob(steps int, stepDur time.Duration) error {
	a.mu.Lock()
	if a.job.running {
		a.mu.Unlock()
		return ErrJobRunning
	}
	f, err := os.OpenFile(filepath.Join(a.cfg.DataDir, HandlerJobFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		a.mu.Unlock()
		return fmt.Errorf("job log: %w", err)
	}
	a.job = jobState{running: true, steps: steps}
	a.jobWG.Add(1)
	a.mu.Unlock()
	a.log.Log(record.Event{Event: record.EventHandlerJobStart, HandlerJobStep: intp(0), HandlerJobSteps: intp(steps)})
	go a.runJob(f, steps, stepDur)
	return nil
}

func (a *App) runJob(f *os.File, steps int, stepDur time.Duration) {
	defer a.jobWG.Done()
	defer f.Close()
	done := 0
	finish := func(ev, msg string) {
		// Log first, so "job_commit" precedes a "drained" it allowed.
		if ev != "" {
			a.log.Log(record.Event{Event: ev, HandlerJobStep: intp(done), HandlerJobSteps: intp(steps), Msg: msg})
		}
		a.mu.Lock()
		a.job.running = false
		a.mu.Unlock()
		a.poke()
	}
	appendLine := func(line string) error {
		if _, err := f.WriteString(line + "\n"); err != nil {
			return err
		}
		return f.Sync()
	}
	for i := 1; i <= steps; i++ {
		if !sleepCtx(a.bgCtx, stepDur) {
			finish("", "")
			return
		}
		if err := appendLine(fmt.Sprintf("step %d/%d", i, steps)); err != nil {
			finish(record.EventHandlerJobError, err.Error())
			return
		}
		done = i
		a.mu.Lock()
		a.job.step = i
		a.mu.Unlock()
	}
	if err := appendLine("COMMIT"); err != nil {
		finish(record.EventHandlerJobError, err.Error())
		return
	}
	finish(record.EventHandlerJobCommit, "")
}
