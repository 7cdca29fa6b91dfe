package runner

import (
	"context"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// signalNumbers are the Linux numbers of the signals a scenario may send,
// as the engine's kill events report them.
var signalNumbers = map[string]int{"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGKILL": 9,
	"SIGUSR1": 10, "SIGUSR2": 12, "SIGTERM": 15, "SIGWINCH": 28}

// againSignal is the signal action.again sends: the action's own, and for
// kind stop the stop signal of the built-in targets, SIGTERM.
func againSignal(a scenarios.Action) string {
	if a.Kind == scenarios.ActionStop {
		return "SIGTERM"
	}
	return a.Signal
}

// startAgain sends action.again (nothing without one): the action's
// signal once more (docker kill -s), again after the action was sent at
// sentNs, while the action's own call (a blocking docker stop) may still
// be waiting. The returned wait gives its record once it was sent, or not
// sent because ctx ended first (nil without an again). A replica already
// gone by then is the engine's error in the record, not the run's.
func (x *run) startAgain(ctx context.Context, id string, sentNs int64) (wait func() *record.Step) {
	a := x.spec.Action
	if a.Again == nil {
		return func() *record.Step { return nil }
	}
	done := make(chan record.Step, 1)
	go func() {
		st := record.Step{Kind: record.StepAgain, Signal: againSignal(a), AfterMs: ms(a.At.D() + a.Again.D())}
		if err := sleepUntil(ctx, time.Unix(0, sentNs).Add(a.Again.D())); err != nil {
			st.Error = "not sent: " + err.Error()
			done <- st
			return
		}
		st.SentNs = time.Now().UnixNano()
		err := x.r.eng.Kill(ctx, id, st.Signal)
		st.ReturnedNs = time.Now().UnixNano()
		if err != nil {
			st.Error = err.Error()
		}
		done <- st
	}()
	return func() *record.Step {
		st := <-done
		return &st
	}
}

// splitAgain moves the again's own kill event out of the action's kills
// and returns the rest: the first event at or after its send time with its
// signal. Everything else stays the action's, such as the SIGKILL of a
// docker stop whose grace period ran out after the again.
func splitAgain(again *record.Step, kills []record.Kill) []record.Kill {
	if again == nil || again.SentNs == 0 {
		return kills
	}
	num := signalNumbers[again.Signal]
	own := kills[:0:0]
	for _, k := range kills {
		if len(again.Kills) == 0 && k.TimeNs >= again.SentNs && (k.Signal == num || k.Signal == 0) {
			again.Kills = append(again.Kills, k)
			continue
		}
		own = append(own, k)
	}
	return own
}
