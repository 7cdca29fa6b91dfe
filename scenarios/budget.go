package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The shutdown budget (issue 14, J3): before a run, from the scenario
// alone, does the target's shutdown end by itself before the grace
// period's SIGKILL? report (which may not import scenarios) applies the
// same rule to a saved run's events.json (report.JobsBudgetOf);
// report's TestBudgetMatchesScenarios keeps the two equal.

// BudgetVerdict is the outcome of a budget audit.
type BudgetVerdict string

// The budget verdicts.
const (
	// BudgetFits: the process exits by itself, worst case, before the
	// grace period ends.
	BudgetFits BudgetVerdict = "fits"
	// BudgetExceeds: worst case, the grace period ends first (SIGKILL,
	// no final log).
	BudgetExceeds BudgetVerdict = "exceeds"
	// BudgetNoShutdown: mode none has no shutdown at all: the signal
	// kills the process at once, with no final log, cutting every job.
	BudgetNoShutdown BudgetVerdict = "no_shutdown"
	// BudgetNoGrace: a signal action (docker kill) is not followed by
	// SIGKILL, so there is no grace period to fit.
	BudgetNoGrace BudgetVerdict = "no_grace"
	// BudgetNoAction: no stop action (a baseline).
	BudgetNoAction BudgetVerdict = "no_action"
	// BudgetUnknown: a variable the audit reads does not parse.
	BudgetUnknown BudgetVerdict = "unknown"
)

// DockerDefaultStopTimeout is the grace period docker stop gives when
// neither -t nor the container's StopTimeout says otherwise.
const DockerDefaultStopTimeout = 10 * time.Second

// The Go target's defaults of the variables the audit reads (targetapp's
// Config): WORKER_DEADLINE_MS 5000 in full mode; PRESTOP_MS and DRAIN_MS
// 0 (DRAIN_MS 0: no drain deadline).
const (
	DefaultWorkerDeadlineMS = 5000
	// RepeatSignalRestart is REPEAT_SIGNAL's bug (J5): every further
	// signal restarts the drain deadline.
	RepeatSignalRestart = "restart"
	// PoolCloseFirst is POOL_CLOSE's bug (J4): the database pool is
	// closed at the signal.
	PoolCloseFirst = "first"
)

// BudgetInput is what the audit reads, from a Spec (SpecBudgetInput) or
// from a saved run.
type BudgetInput struct {
	// Mode is the target's shutdown mode.
	Mode Mode
	// NoAction: the run has no stop action.
	NoAction bool
	// GraceMS is the grace period in ms and GraceFrom where it comes from
	// ("action.timeout", "target.stop_timeout", "docker default"); empty
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

// Budget is the audit: the verdict, the worst-case time from the signal
// until the process exits by itself, what bounds it, and one line
// saying why.
type Budget struct {
	Verdict BudgetVerdict `json:"verdict"`
	// Fits is Verdict == BudgetFits.
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

// SpecBudget audits a resolved Spec (see AuditBudget).
func SpecBudget(s *Spec) Budget { return AuditBudget(SpecBudgetInput(s)) }

// SpecBudgetInput reads what the audit needs from s: the grace period
// (action.timeout, else target.stop_timeout, else Docker's 10 s, for kind
// stop or roll via stop; none for a signal), the target's environment,
// load.jobs' steps and step_ms, http_ms when http_clients > 0, and
// action.again.
func SpecBudgetInput(s *Spec) BudgetInput {
	in := BudgetInput{Mode: s.Target.Mode, Env: s.Target.Env}
	a := &s.Action
	kind := a.Kind
	if kind == ActionRoll {
		kind = a.Roll.Via
	}
	switch kind {
	case ActionNone:
		in.NoAction = true
	case ActionStop:
		switch {
		case a.Timeout != nil:
			in.GraceMS, in.GraceFrom = int(a.Timeout.D().Milliseconds()), "action.timeout"
		case s.Target.StopTimeout != nil:
			in.GraceMS, in.GraceFrom = int(s.Target.StopTimeout.D().Milliseconds()), "target.stop_timeout"
		default:
			in.GraceMS, in.GraceFrom = int(DockerDefaultStopTimeout.Milliseconds()), "docker default"
		}
	}
	if j := s.Load.Jobs; j != nil && s.Load.Kind == LoadJobs {
		in.Steps, in.StepMS = j.Steps, j.StepMS
		if j.HTTPClients > 0 {
			in.HTTPMS = j.HTTPMS
		}
	}
	if a.Again != nil {
		in.AgainMS = int(a.Again.D().Milliseconds())
	}
	return in
}

// budgetEnv is the environment as the audit reads it.
type budgetEnv struct {
	preStop, drain, deadline int
	repeat, pool             string
}

// readBudgetEnv reads the variables, with the target's defaults; an
// error names the first variable that does not parse.
func readBudgetEnv(env map[string]string) (budgetEnv, error) {
	e := budgetEnv{deadline: DefaultWorkerDeadlineMS, repeat: env["REPEAT_SIGNAL"], pool: env["POOL_CLOSE"]}
	for _, v := range []struct {
		name string
		dst  *int
	}{{"PRESTOP_MS", &e.preStop}, {"DRAIN_MS", &e.drain}, {"WORKER_DEADLINE_MS", &e.deadline}} {
		s, ok := env[v.name]
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

// AuditBudget decides whether the shutdown fits its grace period, worst
// case, for the Go target's modes (targetapp; WORKER=on):
//
//   - none: no handler: the signal kills the process (no_shutdown).
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
func AuditBudget(in BudgetInput) Budget {
	b := Budget{GraceMS: in.GraceMS, GraceFrom: in.GraceFrom}
	if in.NoAction {
		b.Verdict, b.Text = BudgetNoAction, "budget: no stop action, nothing to audit"
		return b
	}
	env, err := readBudgetEnv(in.Env)
	if err != nil {
		b.Verdict, b.Text = BudgetUnknown, "budget unknown: "+err.Error()
		return b
	}
	switch in.Mode {
	case ModeClose, ModeFull:
	case ModeNone:
		b.Verdict = BudgetNoShutdown
		b.Text = "budget: mode none has no shutdown: the signal kills the process with no final log, running jobs cut mid-step"
		return b
	default:
		b.Verdict, b.Text = BudgetUnknown, fmt.Sprintf("budget unknown: mode %q (want none, close or full)", in.Mode)
		return b
	}
	budgetExit(&b, in, env)
	if env.pool == PoolCloseFirst {
		b.Notes = append(b.Notes, "POOL_CLOSE=first closes the pool at the signal: running jobs and /db requests fail")
	}
	if in.AgainMS > 0 && env.repeat == RepeatSignalRestart && in.Mode == ModeFull {
		b.Notes = append(b.Notes, fmt.Sprintf("REPEAT_SIGNAL=restart: the signal again at %s restarts the drain", msDur(in.AgainMS)))
	}
	var verdict string
	switch {
	case in.GraceFrom == "":
		b.Verdict = BudgetNoGrace
		verdict = fmt.Sprintf("budget: no grace period (a signal: no SIGKILL follows); mode %s exits by %s (%s)", in.Mode, msDur(b.ExitByMS), b.Bound)
	case b.ExitByMS < in.GraceMS:
		b.Verdict, b.Fits = BudgetFits, true
		verdict = fmt.Sprintf("budget fits: mode %s exits by %s (%s) < grace %s (%s)", in.Mode, msDur(b.ExitByMS), b.Bound, msDur(in.GraceMS), in.GraceFrom)
	default:
		b.Verdict = BudgetExceeds
		verdict = fmt.Sprintf("budget exceeds: mode %s exits by %s (%s) >= grace %s (%s): SIGKILL comes first, no final log", in.Mode, msDur(b.ExitByMS), b.Bound, msDur(in.GraceMS), in.GraceFrom)
	}
	parts := []string{verdict}
	if b.Cuts != "" && b.Verdict != BudgetExceeds {
		// Exceeding, SIGKILL comes first: the design's cuts never happen.
		parts = append(parts, b.Cuts)
	}
	b.Text = strings.Join(append(parts, b.Notes...), "; ")
	return b
}

// budgetExit sets b's worst-case exit, its bound and what it cuts.
func budgetExit(b *Budget, in BudgetInput, env budgetEnv) {
	job := in.Steps * in.StepMS
	if in.Mode == ModeClose {
		b.ExitByMS, b.Bound = in.HTTPMS, fmt.Sprintf("a request of %s", msDur(in.HTTPMS))
		if job >= in.HTTPMS {
			b.ExitByMS, b.Bound = job, fmt.Sprintf("a whole job, %d × %s", in.Steps, msDur(in.StepMS))
		}
		return
	}
	b.ExitByMS, b.Bound = env.preStop+in.HTTPMS, "PRESTOP_MS "+msDur(env.preStop)
	if in.HTTPMS > 0 {
		b.Bound += " + a request of " + msDur(in.HTTPMS)
	}
	jobEnd, jobBound := job, fmt.Sprintf("a whole job, %d × %s", in.Steps, msDur(in.StepMS))
	if job > env.deadline {
		jobEnd = min(job, env.deadline+in.StepMS)
		jobBound = fmt.Sprintf("WORKER_DEADLINE_MS %s + a step of %s", msDur(env.deadline), msDur(in.StepMS))
		b.Cuts = "jobs still running at WORKER_DEADLINE_MS are handed back at their next checkpoint"
	}
	if in.Steps > 0 && jobEnd >= b.ExitByMS {
		b.ExitByMS, b.Bound = jobEnd, jobBound
	}
	if env.drain == 0 {
		return
	}
	deadline, from := env.drain, ""
	if in.AgainMS > 0 && env.repeat == RepeatSignalRestart {
		deadline, from = in.AgainMS+env.drain, fmt.Sprintf(" after the signal again at %s", msDur(in.AgainMS))
	}
	if deadline < b.ExitByMS {
		b.ExitByMS, b.Bound = deadline, fmt.Sprintf("DRAIN_MS %s%s", msDur(env.drain), from)
		b.Cuts = "exit 1 at DRAIN_MS: what still runs is abandoned"
	}
}

// msDur prints ms as a Go duration ("5.3s", "300ms", "0s").
func msDur(ms int) string { return (time.Duration(ms) * time.Millisecond).String() }
