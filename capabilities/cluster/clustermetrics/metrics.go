// Package clustermetrics computes the supervisor metrics of a run of the
// Node cluster target (targetapp/node/cluster.js) from the acted-on
// replica's lifecycle events (fork, worker_exit, forced_exit), its exit, the
// engine's kill events and the request records: forks after the signal,
// crashes and their resurrection, how workers and the primary ended, the
// requests severed at the kill. Pure; report holds the result as a part of
// its Metrics (cluster.Of), and its capability defines the rows.
package clustermetrics

import (
	"slices"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// Metrics are the supervisor metrics of a run of the Node cluster target
// (targetapp/node/cluster.js), pure functions of the acted-on replica's
// lifecycle events, its exit, the engine's kill events and the request
// records. report.Metrics holds them as a part (cluster.Of), flat in
// its JSON: absent from the JSON of other runs. docs/metrics.md, "Cluster
// target", defines each one.
type Metrics struct {
	// ForksAfterSignal counts fork events at or after the replica's first
	// signal event (C1: > 0 with a blind supervisor; C2: 0 gated); null
	// when it logged no signal.
	ForksAfterSignal *int `json:"forks_after_signal"`
	// Crashes counts worker_exit events before the first signal (all of
	// them without one): workers that died while the pool ran.
	Crashes int `json:"crashes"`
	// ResurrectionMs is the slowest crash's time from its worker_exit to
	// the next fork (C2: milliseconds); null without a crash, or when a
	// crashed worker was never replaced (NEVER).
	ResurrectionMs *float64 `json:"resurrection_ms"`
	// WorkerExits counts every worker_exit event, split by how the worker
	// ended: exit code 0, another code, SIGKILL, another signal.
	WorkerExits            int `json:"worker_exits"`
	WorkerExitsCode0       int `json:"worker_exits_code_0"`
	WorkerExitsCodeOther   int `json:"worker_exits_code_other"`
	WorkerExitsSIGKILL     int `json:"worker_exits_sigkill"`
	WorkerExitsSignalOther int `json:"worker_exits_signal_other"`
	// ForcedExit is true when the primary logged forced_exit (the
	// teardown timeout passed with workers alive, C3); ForcedExitMs is
	// that event's ms since the signal.
	ForcedExit   bool     `json:"forced_exit"`
	ForcedExitMs *float64 `json:"forced_exit_ms"`
	// EndedBySelf is true when the replica logged its own exit event and
	// exited with that code; EndedByEngineKill when it exited 137 after an
	// engine SIGKILL (docker stop's grace period ran out, or a SIGKILL
	// action) without logging an exit. Both null when it never exited.
	EndedBySelf       *bool `json:"ended_by_self"`
	EndedByEngineKill *bool `json:"ended_by_engine_kill"`
	// SeveredAtKill counts failed requests open across the kill: started
	// before the kill was certainly done and ended after it certainly began
	// (see killWindow); null when nothing was killed.
	SeveredAtKill *int `json:"severed_at_kill"`
}

// Compute returns the cluster metrics of a cluster-target run (one whose
// acted-on replica logged a fork; nil for other runs) and its notes.
func Compute(meta record.Meta, reqs []record.Request) (*Metrics, []string) {
	i := shutdown.ActedReplica(meta)
	if i < 0 {
		return nil, nil
	}
	rep := meta.Replicas[i]
	if !slices.ContainsFunc(rep.Events, func(e record.Event) bool { return e.Event == record.EventFork }) {
		return nil, nil
	}
	c := &Metrics{}
	var notes []string
	forks, crashes, res, ok := Resurrections(rep.Events)
	c.ForksAfterSignal, c.Crashes = forks, crashes
	if crashes > 0 && ok {
		c.ResurrectionMs = ptr(slices.Max(res))
	}
	if crashes > 0 && !ok {
		notes = append(notes, "cluster: a crashed worker was never replaced")
	}
	for _, e := range rep.Events {
		switch e.Event {
		case record.EventWorkerExit:
			c.WorkerExits++
			switch {
			case e.Signal == "SIGKILL":
				c.WorkerExitsSIGKILL++
			case e.Signal != "":
				c.WorkerExitsSignalOther++
			case e.Code != nil && *e.Code == 0:
				c.WorkerExitsCode0++
			default:
				c.WorkerExitsCodeOther++
			}
		case record.EventForcedExit:
			if !c.ForcedExit && e.Ms != nil {
				c.ForcedExitMs = ptr(*e.Ms)
			}
			c.ForcedExit = true
		}
	}
	c.EndedBySelf, c.EndedByEngineKill = EndedBy(meta, rep)
	if lo, hi, ok := killWindow(meta, rep); ok {
		n := 0
		for j := range reqs {
			r := &reqs[j]
			if r.Class.Failed() && r.Start < hi && r.End >= lo {
				n++
			}
		}
		c.SeveredAtKill = &n
	}
	return c, notes
}

// Resurrections reads a cluster primary's events: the forks at or after
// its first signal (nil without a signal event), the crashes (worker
// exits before the first signal, or all of them without one), and each
// crash's time to the next fork in ms. ok is false when some crash was
// followed by no fork.
func Resurrections(evs []record.Event) (forksAfterSignal *int, crashes int, ms []float64, ok bool) {
	ok = true
	signalAt := slices.IndexFunc(evs, func(e record.Event) bool { return e.Event == record.EventSignal })
	if signalAt >= 0 {
		n := 0
		for _, e := range evs[signalAt:] {
			if e.Event == record.EventFork {
				n++
			}
		}
		forksAfterSignal = &n
	}
	end := len(evs)
	if signalAt >= 0 {
		end = signalAt
	}
	for i, e := range evs[:end] {
		if e.Event != record.EventWorkerExit {
			continue
		}
		crashes++
		next := slices.IndexFunc(evs[i+1:], func(f record.Event) bool { return f.Event == record.EventFork })
		if next < 0 {
			ok = false
			continue
		}
		ms = append(ms, float64(evs[i+1+next].TimeNs-e.TimeNs)/1e6)
	}
	return forksAfterSignal, crashes, ms, ok
}

// EndedBy says who ended the replica's process: itself (it logged an exit
// event and exited with that code) or the engine's SIGKILL (exit 137, a
// SIGKILL kill event recorded, no exit event). Both false: neither is
// certain (e.g. a signal without a handler); both nil: it never exited.
func EndedBy(meta record.Meta, rep record.Replica) (self, engineKill *bool) {
	if !rep.Exited || rep.ExitCode == nil {
		return nil, nil
	}
	code := *rep.ExitCode
	var exitEv *record.Event
	for j := range rep.Events {
		if rep.Events[j].Event == record.EventExit {
			exitEv = &rep.Events[j]
		}
	}
	s := exitEv != nil && exitEv.Code != nil && *exitEv.Code == code
	k := exitEv == nil && code == 137 && engineSIGKILL(meta) > 0
	return &s, &k
}

// engineSIGKILL is the time of the first SIGKILL kill event the engine
// reported for the acted-on replica (0: none).
func engineSIGKILL(meta record.Meta) int64 {
	if meta.Action == nil {
		return 0
	}
	for _, k := range meta.Action.Kills {
		if k.Signal == 9 {
			return k.TimeNs
		}
	}
	return 0
}

// killWindow bounds when the replica's processes were killed: [lo, hi].
// An engine SIGKILL: hi is its kill event (the engine logs it after
// delivering), lo the action's send time plus docker stop's grace period
// when known (the SIGKILL follows it), else the send time. Otherwise a
// forced_exit: lo is that event (logged just before the primary SIGKILLs
// its workers), hi the replica's exit. ok is false when nothing was
// killed.
func killWindow(meta record.Meta, rep record.Replica) (lo, hi int64, ok bool) {
	if t := engineSIGKILL(meta); t > 0 {
		a := meta.Action
		lo = a.SentNs
		if a.Kind == record.ActionStop {
			switch {
			case a.StopTimeoutS != nil:
				lo += int64(*a.StopTimeoutS) * 1e9
			case rep.StopTimeoutS != nil:
				lo += int64(*rep.StopTimeoutS) * 1e9
			}
		}
		return min(lo, t), t, true
	}
	for _, e := range rep.Events {
		if e.Event == record.EventForcedExit {
			hi = e.TimeNs
			if rep.Exited && rep.ExitedNs > hi {
				hi = rep.ExitedNs
			}
			return e.TimeNs, hi, true
		}
	}
	return 0, 0, false
}

func ptr[T any](v T) *T { return &v }
