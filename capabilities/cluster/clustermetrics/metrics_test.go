package clustermetrics

import (
	"slices"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// ev is a lifecycle event at ms milliseconds (as ns).
func ev(ms int64, name string) record.Event { return record.Event{TimeNs: ms * 1e6, Event: name} }

// wexit is a worker_exit at ms with a code or a signal.
func wexit(ms int64, code int, signal string) record.Event {
	e := ev(ms, record.EventWorkerExit)
	if signal != "" {
		e.Signal = signal
	} else {
		e.Code = &code
	}
	return e
}

func TestResurrections(t *testing.T) {
	up, fork, sig := record.EventUp, record.EventFork, record.EventSignal
	tests := []struct {
		name    string
		evs     []record.Event
		forks   int // -1: null (no signal)
		crashes int
		ms      []float64
		ok      bool
	}{
		{"gated: crash, re-fork, signal, no fork", []record.Event{ev(0, fork), ev(0, fork), ev(10, up), wexit(1000, 0, "SIGKILL"), ev(1003, fork),
			ev(3000, sig), ev(3001, record.EventTeardownBroadcast), wexit(5000, 0, ""), wexit(5001, 0, "")}, 0, 1, []float64{3}, true},
		{"blind: forks after the signal are counted, exits after it are no crashes", []record.Event{ev(0, fork), ev(0, fork), ev(10, up),
			ev(2000, sig), wexit(5000, 0, ""), ev(5002, fork), wexit(5003, 0, ""), ev(5004, fork)}, 2, 0, nil, true},
		{"no signal: every exit is a crash", []record.Event{ev(0, fork), wexit(100, 1, ""), ev(150, fork), wexit(200, 0, "SIGKILL"), ev(202, fork)}, -1, 2, []float64{50, 2}, true},
		{"a crash never replaced", []record.Event{ev(0, fork), wexit(100, 0, "SIGKILL")}, -1, 1, nil, false},
		{"a re-fork after the signal still ends the crash", []record.Event{ev(0, fork), wexit(100, 0, "SIGKILL"), ev(120, sig), ev(130, fork)}, 1, 1, []float64{30}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forks, crashes, ms, ok := Resurrections(tt.evs)
			gotForks := -1
			if forks != nil {
				gotForks = *forks
			}
			if gotForks != tt.forks || crashes != tt.crashes || !slices.Equal(ms, tt.ms) || ok != tt.ok {
				t.Errorf("got forks %d crashes %d ms %v ok %v; want %d %d %v %v", gotForks, crashes, ms, ok, tt.forks, tt.crashes, tt.ms, tt.ok)
			}
		})
	}
}
