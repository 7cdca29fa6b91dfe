package jobsmetrics

import (
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/budget"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// The budget audit of a saved run: the rule is budget.Audit, the one
// scenarios applies before a run; this file builds its input from what
// events.json recorded of the run's configuration.

// BudgetOf audits a saved run's configuration: the acted-on
// replica's mode (MODE in its env, else its up event) and env, the grace
// period (a stop action's -t, else the replica's StopTimeout, else
// Docker's 10 s; none for a signal), the longest job of the ledger, the
// longest /db?ms= request of the records, and the action's signal again
// (its send time after the action's). Pure.
func BudgetOf(meta record.Meta, reqs []record.Request) budget.Result {
	return budget.Audit(budgetInputOf(meta, reqs))
}

// budgetInputOf reads a budget.Input from a saved run.
func budgetInputOf(meta record.Meta, reqs []record.Request) budget.Input {
	a := meta.Action
	if a == nil {
		return budget.Input{NoAction: true}
	}
	var in budget.Input
	if i := shutdown.ActedReplica(meta); i >= 0 {
		rep := &meta.Replicas[i]
		in.Env, in.Mode = rep.Env, rep.Env["MODE"]
		if in.Mode == "" {
			in.Mode = shutdown.UpMode(rep.Events)
		}
		if a.Kind == record.ActionStop {
			switch {
			case a.StopTimeoutS != nil:
				in.GraceMS, in.GraceFrom = *a.StopTimeoutS*1000, budget.GraceFromAction
			case rep.StopTimeoutS != nil:
				in.GraceMS, in.GraceFrom = *rep.StopTimeoutS*1000, budget.GraceFromTarget
			default:
				in.GraceMS, in.GraceFrom = int(budget.DockerDefaultStopTimeout.Milliseconds()), budget.GraceFromDocker
			}
		}
	}
	if meta.Jobs() != nil {
		for _, e := range meta.Jobs().Entries {
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
