// Package shutdown reads what metrics of several capabilities share about
// a run's shutdown, from its record.Meta alone: which replica was acted on
// (ActedReplica), when the action's signal was on its way to it (the
// delivery window, DeliveryWindow) and when it most likely arrived
// (SignalTime), what the replica's lifecycle events say (UpMode,
// FirstEvent), and how a time after t₀ is printed (SignedMs). Pure; it
// imports nothing of report, which imports it.
package shutdown

import "github.com/shutdownlab/shutdownlab/record"

// Signal references: which clock reading bounds the signal's arrival (see
// DeliveryWindow and SignalTime).
const (
	SignalRefApp         = "app"          // the target's own "signal" lifecycle event
	SignalRefEngineEvent = "engine_event" // the engine's "kill" event for the replica
	SignalRefEngine      = "engine"       // docker kill returned: the signal was delivered by then
	SignalRefStop        = "stop_return"  // docker stop returned (after the exit)
	SignalRefExit        = "exit"         // the replica exited: it had the signal by then
	SignalRefSent        = "sent"         // nothing bounds it: only the send time is known
)

// Window is the signal's delivery window for one run: the signal left the
// harness at T0 and had reached the acted-on replica by T1 at the latest.
// Every bound is a measurement (never an assumption): T1 is the earliest of
// the upper bounds the run observed, and Ref names it.
type Window struct {
	T0, T1 int64
	Ref    string
}

// DeliveryWindow returns the run's delivery window; ok is false when no
// action fired. The upper bounds, each a moment by which the signal had
// certainly arrived: the replica's own "signal" lifecycle event (logged by
// its handler), the engine's first "kill" event for it (emitted after the
// daemon handed the signal over), the return of docker kill, the return of
// docker stop, and the replica's exit. With none of them, T1 = T0 and Ref
// is "sent": the window is unknown and the phase metrics say so in a note.
func DeliveryWindow(meta record.Meta) (w Window, ok bool) {
	a := meta.Action
	if a == nil || a.SentNs <= 0 {
		return Window{}, false
	}
	w = Window{T0: a.SentNs}
	consider := func(t int64, ref string) {
		if t >= a.SentNs && (w.Ref == "" || t < w.T1) {
			w.T1, w.Ref = t, ref
		}
	}
	if t := AppSignalNs(meta); t > 0 {
		consider(t, SignalRefApp)
	}
	if len(a.Kills) > 0 {
		consider(a.Kills[0].TimeNs, SignalRefEngineEvent)
	}
	if a.Error == "" && a.ReturnedNs > 0 {
		switch a.Kind {
		case record.ActionSignal, record.ActionTerminate: // a terminate's SentNs is its docker kill
			consider(a.ReturnedNs, SignalRefEngine)
		case record.ActionStop:
			consider(a.ReturnedNs, SignalRefStop)
		}
	}
	if i := ActedReplica(meta); i >= 0 && meta.Replicas[i].Exited && meta.Replicas[i].ExitedNs > 0 {
		consider(meta.Replicas[i].ExitedNs, SignalRefExit)
	}
	if w.Ref == "" {
		w.T1, w.Ref = w.T0, SignalRefSent
	}
	return w, true
}

// AppSignalNs is the time of the acted-on replica's first "signal" event at
// or after the action was sent (0 when it logged none).
func AppSignalNs(meta record.Meta) int64 {
	i := ActedReplica(meta)
	if i < 0 || meta.Action == nil {
		return 0
	}
	for _, e := range meta.Replicas[i].Events {
		if e.Event == record.EventSignal && e.TimeNs >= meta.Action.SentNs {
			return e.TimeNs
		}
	}
	return 0
}

// SignalTime returns the best single estimate of when the signal reached
// the acted-on replica, for the metrics that need one instant (the probe's
// times, the plot marker): the app's own signal event when it logged one,
// else the upper end of the delivery window. It returns 0, "" when no
// action fired.
func SignalTime(meta record.Meta) (int64, string) {
	w, ok := DeliveryWindow(meta)
	if !ok {
		return 0, ""
	}
	if t := AppSignalNs(meta); t > 0 {
		return t, SignalRefApp
	}
	return w.T1, w.Ref
}

// ActedReplica returns the index of the replica the metrics describe:
// Action.Replica when there is an action, else 0; -1 when out of range.
func ActedReplica(meta record.Meta) int {
	i := 0
	if meta.Action != nil {
		i = meta.Action.Replica
	}
	if i < 0 || i >= len(meta.Replicas) {
		return -1
	}
	return i
}

// FirstEvent is the time of the first event named name (0: none).
func FirstEvent(events []record.Event, name string) int64 {
	for _, e := range events {
		if e.Event == name {
			return e.TimeNs
		}
	}
	return 0
}

// UpMode is the mode the replica's up event names ("" without one).
func UpMode(events []record.Event) string {
	for _, e := range events {
		if e.Event == record.EventUp {
			return e.Mode
		}
	}
	return ""
}

// IsIdleCloseRace reports whether a failed request has the idle-close
// signature: the connection had carried a request before, and it ended in
// eof or reset with no response byte (docs/metrics.md, idle_close_race).
func IsIdleCloseRace(r *record.Request) bool {
	return r.Reused && r.FirstByte == 0 && (r.Class == record.ClassEOF || r.Class == record.ClassReset)
}
