package shutdown

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// TestDeliveryWindow pins which measurement bounds the signal's arrival:
// the earliest upper bound the run observed.
func TestDeliveryWindow(t *testing.T) {
	ev := func(name string, ts int64) record.Event { return record.Event{Event: name, TimeNs: ts} }
	kill := func(ts int64) []record.Kill { return []record.Kill{{TimeNs: ts, Signal: 15}} }
	tests := []struct {
		name    string
		action  *record.Action
		events  []record.Event
		exitNs  int64
		wantT1  int64
		wantRef string
	}{
		// The app's own signal event, when it is the earliest bound.
		{"app event", &record.Action{Kind: "signal", SentNs: 100, ReturnedNs: 300}, []record.Event{ev("up", 10), ev("signal", 250)}, 0, 250, SignalRefApp},
		// The engine's kill event can be earlier than the app's log line.
		{"engine event first", &record.Action{Kind: "stop", SentNs: 100, ReturnedNs: 9000, Kills: kill(120)}, []record.Event{ev("signal", 150)}, 0, 120, SignalRefEngineEvent},
		// No handler, docker kill: delivered by the time the call returned.
		{"kill return", &record.Action{Kind: "signal", SentNs: 100, ReturnedNs: 157}, []record.Event{ev("up", 10)}, 0, 157, SignalRefEngine},
		// docker stop without events: bounded by the engine's kill event.
		{"stop with engine event", &record.Action{Kind: "stop", SentNs: 100, ReturnedNs: 10100, Kills: kill(112)}, nil, 10090, 112, SignalRefEngineEvent},
		// docker stop, no event stream: the exit bounds it.
		{"stop exit", &record.Action{Kind: "stop", SentNs: 100, ReturnedNs: 10100}, nil, 400, 400, SignalRefExit},
		// docker stop, no event, never exited: its return.
		{"stop return", &record.Action{Kind: "stop", SentNs: 100, ReturnedNs: 10100}, nil, 0, 10100, SignalRefStop},
		// A failed call bounds nothing; a corrupt return time is ignored.
		{"unbounded", &record.Action{Kind: "signal", SentNs: 100, ReturnedNs: 50, Error: "boom"}, nil, 0, 100, SignalRefSent},
		// A signal event from before the action (another signal) is ignored.
		{"old app event", &record.Action{Kind: "signal", SentNs: 100, ReturnedNs: 160}, []record.Event{ev("signal", 90)}, 0, 160, SignalRefEngine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := record.Replica{Name: "replica-0", Events: tt.events}
			if tt.exitNs > 0 {
				rep.Exited, rep.ExitedNs, rep.ExitCode = true, tt.exitNs, new(int)
			}
			w, ok := DeliveryWindow(record.Meta{Action: tt.action, Replicas: []record.Replica{rep}})
			if !ok || w.T0 != tt.action.SentNs || w.T1 != tt.wantT1 || w.Ref != tt.wantRef {
				t.Errorf("DeliveryWindow = %+v, %v; want T1 %d ref %q", w, ok, tt.wantT1, tt.wantRef)
			}
		})
	}
	if _, ok := DeliveryWindow(record.Meta{Action: &record.Action{Kind: "signal"}}); ok {
		t.Error("an action that never fired has a window")
	}
}
