package report

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// The budget audit of a saved run: scenarios.AuditBudget's rule (report
// may not import scenarios), applied to what events.json recorded of the
// run's configuration. TestBudgetMatchesScenarios keeps the two equal;
// change both together.

// BudgetVerdict is the outcome of a budget audit (scenarios.BudgetVerdict's
// values).
type BudgetVerdict string

// The budget verdicts (see scenarios.BudgetVerdict).
const (
	BudgetFits       BudgetVerdict = "fits"
	BudgetExceeds    BudgetVerdict = "exceeds"
	BudgetNoShutdown BudgetVerdict = "no_shutdown"
	BudgetNoGrace    BudgetVerdict = "no_grace"
	BudgetNoAction   BudgetVerdict = "no_action"
	BudgetUnknown    BudgetVerdict = "unknown"
)

// dockerDefaultGraceMs is docker stop's grace period when neither -t nor
// the container's StopTimeout sets one.
const dockerDefaultGraceMs = 10000

// The Go target's defaults and bug values of the variables the audit
// reads (targetapp's Config; scenarios/budget.go).
const (
	defaultWorkerDeadlineMs = 5000
	repeatSignalRestart     = "restart"
	poolCloseFirst          = "first"
)

// BudgetInput is what the audit reads (scenarios.BudgetInput).
type BudgetInput struct {
	Mode      string
	NoAction  bool
	GraceMS   int
	GraceFrom string
	Env       map[string]string
	Steps     int
	StepMS    int
	HTTPMS    int
	AgainMS   int
}

// Budget is an audit's outcome (scenarios.Budget).
type Budget struct {
	Verdict   BudgetVerdict
	Fits      bool
	GraceMS   int
	GraceFrom string
	ExitByMS  int
	Bound     string
	Cuts      string
	Notes     []string
	Text      string
}

// JobsBudgetOf audits a saved run's configuration: the acted-on
// replica's mode (MODE in its env, else its up event) and env, the grace
// period (a stop action's -t, else the replica's StopTimeout, else
// Docker's 10 s; none for a signal), the longest job of the ledger, the
// longest /db?ms= request of the records, and the action's signal again
// (its send time after the action's). Pure.
func JobsBudgetOf(meta record.Meta, reqs []record.Request) Budget {
	return AuditBudget(budgetInputOf(meta, reqs))
}

// budgetInputOf reads a BudgetInput from a saved run.
func budgetInputOf(meta record.Meta, reqs []record.Request) BudgetInput {
	a := meta.Action
	if a == nil {
		return BudgetInput{NoAction: true}
	}
	var in BudgetInput
	if i := ActedReplica(meta); i >= 0 {
		rep := &meta.Replicas[i]
		in.Env, in.Mode = rep.Env, rep.Env["MODE"]
		if in.Mode == "" {
			in.Mode = upMode(rep.Events)
		}
		if a.Kind == record.ActionStop {
			switch {
			case a.StopTimeoutS != nil:
				in.GraceMS, in.GraceFrom = *a.StopTimeoutS*1000, "action.timeout"
			case rep.StopTimeoutS != nil:
				in.GraceMS, in.GraceFrom = *rep.StopTimeoutS*1000, "target.stop_timeout"
			default:
				in.GraceMS, in.GraceFrom = dockerDefaultGraceMs, "docker default"
			}
		}
	}
	if meta.Jobs != nil {
		for _, e := range meta.Jobs.Entries {
			if e.Steps*e.StepMS > in.Steps*in.StepMS || in.Steps == 0 {
				in.Steps, in.StepMS = e.Steps, e.StepMS
			}
		}
	}
	in.HTTPMS = longestDBRequestMs(reqs)
	if g := a.Again; g != nil && g.SentNs > 0 && a.SentNs > 0 {
		in.AgainMS = int(math.Round(float64(g.SentNs-a.SentNs) / 1e6))
	}
	return in
}

// longestDBRequestMs is the largest ms= of the GET /db requests (300, the
// target's default, without one); 0 without such a request.
func longestDBRequestMs(reqs []record.Request) int {
	longest := 0
	for i := range reqs {
		p, q, _ := strings.Cut(reqs[i].Path, "?")
		if p != "/db" {
			continue
		}
		ms := 300
		if v, err := url.ParseQuery(q); err == nil && v.Has("ms") {
			if n, err := strconv.Atoi(v.Get("ms")); err == nil && n >= 0 {
				ms = n
			}
		}
		longest = max(longest, ms)
	}
	return longest
}

// budgetEnv is the environment as the audit reads it.
type budgetEnv struct {
	preStop, drain, deadline int
	repeat, pool             string
}

// readBudgetEnv reads the variables with the target's defaults; an error
// names the first that does not parse.
func readBudgetEnv(env map[string]string) (budgetEnv, error) {
	e := budgetEnv{deadline: defaultWorkerDeadlineMs, repeat: env["REPEAT_SIGNAL"], pool: env["POOL_CLOSE"]}
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

// AuditBudget is scenarios.AuditBudget: whether the shutdown fits its
// grace period, worst case (see there for the rule). Pure.
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
	case "close", "full":
	case "none":
		b.Verdict = BudgetNoShutdown
		b.Text = "budget: mode none has no shutdown: the signal kills the process with no final log, running jobs cut mid-step"
		return b
	default:
		b.Verdict, b.Text = BudgetUnknown, fmt.Sprintf("budget unknown: mode %q (want none, close or full)", in.Mode)
		return b
	}
	budgetExit(&b, in, env)
	if env.pool == poolCloseFirst {
		b.Notes = append(b.Notes, "POOL_CLOSE=first closes the pool at the signal: running jobs and /db requests fail")
	}
	if in.AgainMS > 0 && env.repeat == repeatSignalRestart && in.Mode == "full" {
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
	if in.Mode == "close" {
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
	if in.AgainMS > 0 && env.repeat == repeatSignalRestart {
		deadline, from = in.AgainMS+env.drain, fmt.Sprintf(" after the signal again at %s", msDur(in.AgainMS))
	}
	if deadline < b.ExitByMS {
		b.ExitByMS, b.Bound = deadline, fmt.Sprintf("DRAIN_MS %s%s", msDur(env.drain), from)
		b.Cuts = "exit 1 at DRAIN_MS: what still runs is abandoned"
	}
}

// msDur prints ms as a Go duration ("5.3s", "300ms", "0s").
func msDur(ms int) string { return (time.Duration(ms) * time.Millisecond).String() }
