// Package budget is the shutdown budget audit (claim J3, docs/claims.md): does a
// jobs run's shutdown end by itself, worst case, before the grace
// period's SIGKILL? It is the rule alone, defined once: scenarios builds
// its Input from a scenario before a run (scenarios.SpecBudgetInput) and
// report from a saved run's events.json (jobsmetrics.BudgetOf). It
// imports only the standard library.
package budget

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Verdict is the outcome of an audit.
type Verdict string

// The verdicts.
const (
	// Fits: the process exits by itself, worst case, before the grace
	// period ends.
	Fits Verdict = "fits"
	// Exceeds: worst case, the grace period ends first (SIGKILL, no
	// final log).
	Exceeds Verdict = "exceeds"
	// NoShutdown: mode none has no shutdown at all: the signal kills the
	// process at once, with no final log, cutting every job.
	NoShutdown Verdict = "no_shutdown"
	// NoGrace: a signal action (docker kill) is not followed by SIGKILL,
	// so there is no grace period to fit.
	NoGrace Verdict = "no_grace"
	// NoAction: no stop action (a baseline).
	NoAction Verdict = "no_action"
	// Unknown: a variable the audit reads does not parse, or the mode is
	// not one of the target's.
	Unknown Verdict = "unknown"
)

// DockerDefaultStopTimeout is the grace period docker stop gives when
// neither -t nor the container's StopTimeout says otherwise.
const DockerDefaultStopTimeout = 10 * time.Second

// Where a grace period comes from (Input.GraceFrom), in the order the
// adapters look: a stop action's timeout, the target's stop timeout,
// Docker's default.
const (
	// GraceFromAction: action.grace_period (docker stop -t), by the name
	// results record it under (its old one: reports quote this text).
	GraceFromAction = "action.timeout"
	// GraceFromTarget: target.grace_period (the container's StopTimeout),
	// likewise by its old name.
	GraceFromTarget = "target.stop_timeout"
	// GraceFromDocker: neither, so DockerDefaultStopTimeout.
	GraceFromDocker = "docker default"
)

// The Go target's modes (targetapp; scenarios.Mode's values) and its
// defaults and bug values of the variables the audit reads (targetapp's
// Config): WORKER_DEADLINE_MS 5000 in full mode; PRESTOP_MS and DRAIN_MS
// 0 (DRAIN_MS 0: no drain deadline); REPEAT_SIGNAL=restart (J5: every
// further signal restarts the drain deadline); POOL_CLOSE=first (J4: the
// database pool is closed at the signal).
const (
	modeNone, modeClose, modeFull = "none", "close", "full"

	defaultWorkerDeadlineMS = 5000
	repeatSignalRestart     = "restart"
	poolCloseFirst          = "first"
)

// Input is what the audit reads, from a scenario or from a saved run.
type Input struct {
	// Mode is the target's shutdown mode (none, close, full).
	Mode string
	// NoAction: the run has no stop action.
	NoAction bool
	// GraceMS is the grace period in ms and GraceFrom where it comes from
	// (GraceFromAction, GraceFromTarget, GraceFromDocker); empty
	// GraceFrom: no grace period (a signal action).
	GraceMS   int
	GraceFrom string
	// Env is the target's environment (PRESTOP_MS, DRAIN_MS,
	// WORKER_DEADLINE_MS, REPEAT_SIGNAL, POOL_CLOSE; unset: defaults).
	Env map[string]string
	// Steps and StepMS describe the longest job; 0 steps: no jobs.
	Steps, StepMS int
	// HTTPMS is the longest HTTP request the load sends (0: none).
	HTTPMS int
	// AgainMS is when the signal is sent again after the first (0: never).
	AgainMS int
}

// Result is the audit: the verdict, the worst-case time from the signal
// until the process exits by itself, what bounds it, and one line
// saying why.
type Result struct {
	Verdict Verdict `json:"verdict"`
	// Fits is Verdict == Fits.
	Fits bool `json:"fits"`
	// GraceMS and GraceFrom are the input's (GraceFrom empty: none).
	GraceMS   int    `json:"grace_ms,omitempty"`
	GraceFrom string `json:"grace_from,omitempty"`
	// ExitByMS is the worst-case exit after the signal (modes close and
	// full); Bound says what sets it.
	ExitByMS int    `json:"exit_by_ms,omitempty"`
	Bound    string `json:"bound,omitempty"`
	// Cuts says what the exit leaves undone by design ("" when nothing):
	// jobs handed back at the worker deadline, work abandoned at DRAIN_MS.
	Cuts string `json:"cuts,omitempty"`
	// Notes are further warnings (POOL_CLOSE=first, REPEAT_SIGNAL=restart).
	Notes []string `json:"notes,omitempty"`
	// Text is the whole audit on one line.
	Text string `json:"text"`
}

// env is the environment as the audit reads it.
type env struct {
	preStop, drain, deadline int
	repeat, pool             string
}

// readEnv reads the variables, with the target's defaults; an error
// names the first variable that does not parse.
func readEnv(vars map[string]string) (env, error) {
	e := env{deadline: defaultWorkerDeadlineMS, repeat: vars["REPEAT_SIGNAL"], pool: vars["POOL_CLOSE"]}
	for _, v := range []struct {
		name string
		dst  *int
	}{{"PRESTOP_MS", &e.preStop}, {"DRAIN_MS", &e.drain}, {"WORKER_DEADLINE_MS", &e.deadline}} {
		s, ok := vars[v.name]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return e, fmt.Errorf("target.env %s=%q is not a whole number of ms", v.name, s)
		}
		*v.dst = n
	}
	return e, nil
}

// Audit decides whether the shutdown fits its grace period, worst case,
// for the Go target's modes (targetapp; WORKER=on):
//
//   - none: no handler: the signal kills the process (NoShutdown).
//   - close: the stock shutdown waits for in-flight requests and then for
//     running jobs however long: a job begun just before the signal
//     needs steps × step_ms, a request http_ms.
//   - full: the HTTP drain needs PRESTOP_MS + http_ms; a job needs its
//     length, or, when longer than WORKER_DEADLINE_MS, the deadline plus
//     one step (it stops at the next checkpoint and is handed back).
//     DRAIN_MS (counted from the latest signal with REPEAT_SIGNAL=restart)
//     cuts the drain short: exit 1 at the deadline.
//
// It fits when that exit comes strictly before the grace period ends: a
// drain deadline equal to the grace period (J3) does not fit. Pure.
func Audit(in Input) Result {
	b := Result{GraceMS: in.GraceMS, GraceFrom: in.GraceFrom}
	if in.NoAction {
		b.Verdict, b.Text = NoAction, "budget: no stop action, nothing to audit"
		return b
	}
	e, err := readEnv(in.Env)
	if err != nil {
		b.Verdict, b.Text = Unknown, "budget unknown: "+err.Error()
		return b
	}
	switch in.Mode {
	case modeClose, modeFull:
	case modeNone:
		b.Verdict = NoShutdown
		b.Text = "budget: mode none has no shutdown: the signal kills the process with no final log, running jobs cut mid-step"
		return b
	default:
		b.Verdict, b.Text = Unknown, fmt.Sprintf("budget unknown: mode %q (want none, close or full)", in.Mode)
		return b
	}
	exitBy(&b, in, e)
	if e.pool == poolCloseFirst {
		b.Notes = append(b.Notes, "POOL_CLOSE=first closes the pool at the signal: running jobs and /db requests fail")
	}
	if in.AgainMS > 0 && e.repeat == repeatSignalRestart && in.Mode == modeFull {
		b.Notes = append(b.Notes, fmt.Sprintf("REPEAT_SIGNAL=restart: the signal again at %s restarts the drain", msDur(in.AgainMS)))
	}
	b.Text = judge(&b, in)
	return b
}

// judge sets b's verdict from its exit and the grace period and returns
// the audit's one line.
func judge(b *Result, in Input) string {
	var verdict string
	switch {
	case in.GraceFrom == "":
		b.Verdict = NoGrace
		verdict = fmt.Sprintf("budget: no grace period (a signal: no SIGKILL follows); mode %s exits by %s (%s)", in.Mode, msDur(b.ExitByMS), b.Bound)
	case b.ExitByMS < in.GraceMS:
		b.Verdict, b.Fits = Fits, true
		verdict = fmt.Sprintf("budget fits: mode %s exits by %s (%s) < grace %s (%s)", in.Mode, msDur(b.ExitByMS), b.Bound, msDur(in.GraceMS), in.GraceFrom)
	case b.ExitByMS == in.GraceMS:
		// Measured on Docker 20.10 (job-budget, DRAIN_MS = -t): the engine
		// starts its timer after delivering the signal and the app counts
		// from receiving it, so the app exited by itself (10017-10021 ms
		// after docker stop) before the kill in 3 of 3 runs. No margin
		// either way: not a fit.
		b.Verdict = Exceeds
		verdict = fmt.Sprintf("budget exceeds: mode %s exits by %s (%s) = grace %s (%s): no margin, the exit races the SIGKILL", in.Mode, msDur(b.ExitByMS), b.Bound, msDur(in.GraceMS), in.GraceFrom)
	default:
		b.Verdict = Exceeds
		verdict = fmt.Sprintf("budget exceeds: mode %s exits by %s (%s) > grace %s (%s): SIGKILL comes first, no final log", in.Mode, msDur(b.ExitByMS), b.Bound, msDur(in.GraceMS), in.GraceFrom)
	}
	parts := []string{verdict}
	if b.Cuts != "" && b.Verdict != Exceeds {
		// Exceeding, SIGKILL comes first (or races the exit): the
		// design's cuts are not to be counted on.
		parts = append(parts, b.Cuts)
	}
	return strings.Join(append(parts, b.Notes...), "; ")
}

// exitBy sets b's worst-case exit, its bound and what it cuts.
func exitBy(b *Result, in Input, e env) {
	job := in.Steps * in.StepMS
	if in.Mode == modeClose {
		b.ExitByMS, b.Bound = in.HTTPMS, fmt.Sprintf("a request of %s", msDur(in.HTTPMS))
		if job >= in.HTTPMS {
			b.ExitByMS, b.Bound = job, fmt.Sprintf("a whole job, %d × %s", in.Steps, msDur(in.StepMS))
		}
		return
	}
	b.ExitByMS, b.Bound = e.preStop+in.HTTPMS, "PRESTOP_MS "+msDur(e.preStop)
	if in.HTTPMS > 0 {
		b.Bound += " + a request of " + msDur(in.HTTPMS)
	}
	jobEnd, jobBound := job, fmt.Sprintf("a whole job, %d × %s", in.Steps, msDur(in.StepMS))
	if job > e.deadline {
		jobEnd = min(job, e.deadline+in.StepMS)
		jobBound = fmt.Sprintf("WORKER_DEADLINE_MS %s + a step of %s", msDur(e.deadline), msDur(in.StepMS))
		b.Cuts = "jobs still running at WORKER_DEADLINE_MS are handed back at their next checkpoint"
	}
	if in.Steps > 0 && jobEnd >= b.ExitByMS {
		b.ExitByMS, b.Bound = jobEnd, jobBound
	}
	if e.drain == 0 {
		return
	}
	deadline, from := e.drain, ""
	if in.AgainMS > 0 && e.repeat == repeatSignalRestart {
		deadline, from = in.AgainMS+e.drain, fmt.Sprintf(" after the signal again at %s", msDur(in.AgainMS))
	}
	if deadline < b.ExitByMS {
		b.ExitByMS, b.Bound = deadline, fmt.Sprintf("DRAIN_MS %s%s", msDur(e.drain), from)
		b.Cuts = "exit 1 at DRAIN_MS: what still runs is abandoned"
	}
}

// msDur prints ms as a Go duration ("5.3s", "300ms", "0s").
func msDur(ms int) string { return (time.Duration(ms) * time.Millisecond).String() }
