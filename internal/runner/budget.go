package runner

import (
	"github.com/shutdownlab/shutdownlab/budget"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// BudgetLine is the pre-run budget audit of a variant's spec
// (scenarios.SpecBudget: budget.Audit's rule) on one line, "[VARIANT]
// budget fits: ...", and the audit itself; ok is false, and the line
// empty, for a load kind that declares no work to audit (the audit
// reads the job's length: scenarios.LoadKindDef.Work).
func BudgetLine(variant string, spec *scenarios.Spec) (line string, b budget.Result, ok bool) {
	if d, _ := scenarios.LoadKindOf(spec.Load.Kind); d.Work == nil {
		return "", budget.Result{}, false
	}
	b = scenarios.SpecBudget(spec)
	return "[" + variant + "] " + b.Text, b, true
}

// LogBudget prints BudgetLine on p before a variant's runs (nothing for
// a load kind without work to audit) and returns the audit and whether there is
// one.
func LogBudget(p Progress, variant string, spec *scenarios.Spec) (budget.Result, bool) {
	line, b, ok := BudgetLine(variant, spec)
	if ok && p != nil {
		p.Logf("%s", line)
	}
	return b, ok
}
