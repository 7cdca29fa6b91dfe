package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// stepLog is the action.before steps sent so far, in their order.
type stepLog struct{ sent []record.Step }

// runSteps does the action's steps (action.before) to the acted-on
// replica, each at its planned time after load start, and records each
// one in x.caps.steps as it is sent: a crash (docker kill -s SIGUSR2: the
// cluster target's primary SIGKILLs one worker) or a signal. A replica
// that is gone before a step makes the run invalid, as one gone before the
// action does.
func (x *run) runSteps(ctx context.Context, loadStart time.Time) error {
	a := x.spec.Action
	eng := x.r.eng
	c := x.replica(a.Replica)
	for i, st := range a.Before {
		if err := sleepUntil(ctx, loadStart.Add(st.At.D())); err != nil {
			return err
		}
		state, err := eng.Inspect(ctx, c.ID)
		if err != nil {
			return err
		}
		if !state.Running {
			return invalidf("replica %d exited before action.before[%d] (%s at %s; code %d)",
				a.Replica, i, st.Kind, st.At, state.ExitCode)
		}
		rec := record.Step{Kind: string(st.Kind), Signal: st.SignalName(), AfterMs: ms(st.At.D())}
		rec.SentNs = time.Now().UnixNano()
		err = eng.Kill(ctx, c.ID, rec.Signal)
		rec.ReturnedNs = time.Now().UnixNano()
		if err != nil {
			rec.Error = err.Error()
		}
		if x.caps.steps == nil {
			x.caps.steps = &stepLog{}
		}
		x.caps.steps.sent = append(x.caps.steps.sent, rec)
		if err != nil {
			return fmt.Errorf("action.before[%d] %s: %w", i, st.Kind, err)
		}
	}
	return nil
}

// keepSteps stores the steps done in the run's action record, with the
// engine's kill events they caused: the action's kills from before its
// send time move to the step sent last before each (see splitKills). An
// action that never fired still gets a record (SentNs 0) holding the
// steps and every kill event seen.
func (x *run) keepSteps() {
	steps := x.caps.steps
	if steps == nil || len(steps.sent) == 0 {
		return
	}
	rec := x.meta.Action
	if rec == nil {
		a := x.spec.Action
		rec = &record.Action{Kind: string(a.Kind), Signal: a.Signal, Replica: a.Replica, AfterMs: ms(a.At.D())}
		x.meta.Action = rec
		x.recordKills(rec) // the action never fired: every kill is a step's
	}
	rec.Before = steps.sent
	rec.Kills = splitKills(rec.Before, rec.Kills, rec.SentNs)
}

// splitKills gives each step the kill events from its send time until
// the next step's, for the events before the action's send time
// (actionNs; 0: never sent, so all of them), and returns the action's
// own: those at or after actionNs, and any from before the first step.
// Each docker kill returns only after the engine delivered the signal and
// the steps and the action are sent one after another, so an event
// belongs to the last call sent before it.
func splitKills(steps []record.Step, kills []record.Kill, actionNs int64) []record.Kill {
	var own []record.Kill
	for _, k := range kills {
		i := -1
		if actionNs == 0 || k.TimeNs < actionNs {
			for j := range steps {
				if steps[j].SentNs > 0 && steps[j].SentNs <= k.TimeNs {
					i = j
				}
			}
		}
		if i < 0 {
			own = append(own, k)
			continue
		}
		steps[i].Kills = append(steps[i].Kills, k)
	}
	return own
}
