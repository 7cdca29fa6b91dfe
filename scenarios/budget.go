package scenarios

import "github.com/shutdownlab/shutdownlab/budget"

// The shutdown budget (claim J3 in docs/claims.md) before a run, from the scenario
// alone: the rule is budget.Audit; this file builds its input from a
// Spec. report builds the same input from a saved run's events.json
// (jobsmetrics.BudgetOf).

// SpecBudget audits a resolved Spec (see budget.Audit).
func SpecBudget(s *Spec) budget.Result { return budget.Audit(SpecBudgetInput(s)) }

// SpecBudgetInput reads what the audit needs from s: the grace period
// (action.grace_period, else target.grace_period, else Docker's 10 s, for kind
// stop or roll via stop; none for a signal), the target's environment,
// the work the load leaves in a replica (its kind's LoadKindDef.Work:
// load.jobs' steps and step_ms, http_ms when http_clients > 0), and
// action.again.
func SpecBudgetInput(s *Spec) budget.Input {
	in := budget.Input{Mode: string(s.Target.Mode), Env: s.Target.Env}
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
			in.GraceMS, in.GraceFrom = int(a.Timeout.D().Milliseconds()), budget.GraceFromAction
		case s.Target.StopTimeout != nil:
			in.GraceMS, in.GraceFrom = int(s.Target.StopTimeout.D().Milliseconds()), budget.GraceFromTarget
		default:
			in.GraceMS, in.GraceFrom = int(budget.DockerDefaultStopTimeout.Milliseconds()), budget.GraceFromDocker
		}
	}
	if work := s.Load.kindDef().Work; work != nil {
		w := work(s.Load)
		in.Steps, in.StepMS, in.HTTPMS = w.Steps, w.StepMS, w.HTTPMS
	}
	if a.Again != nil {
		in.AgainMS = int(a.Again.D().Milliseconds())
	}
	return in
}
