package report

import (
	"slices"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// The shape of a stop, read from the records around it: whether the server
// still took connections after the signal (a listener left open, as a
// reloading server keeps it), whether SIGKILL cut work it had accepted
// before the signal (a drain longer than the grace period), and how the
// server served before the signal (its service time and parallelism: a
// capacity limit queues requests, and a stop then cuts the queue).

// killLagNs is how long before the engine's SIGKILL event a request may end
// and still count as cut by it: the daemon stamps its event after handing
// the signal over, so the client can see its connection die a little
// before that stamp.
const killLagNs = int64(100e6)

// queueWaitFloorNs is the smallest wait before a first byte that counts as
// queueing, whatever the service time: a 1 ms service time makes every
// scheduler hiccup "a wait of one service time".
const queueWaitFloorNs = int64(10e6)

// computeStopShape fills conns_opened_after_signal, dropped_at_kill,
// service_ms, waited_before_signal and served_concurrency (docs/metrics.md).
func computeStopShape(m *Metrics, meta record.Meta, reqs []record.Request) {
	w, ok := shutdown.DeliveryWindow(meta)
	if !ok {
		return
	}
	opened := map[uint64]bool{}
	for i := range reqs {
		if r := &reqs[i]; r.Conn != 0 && r.Connected >= w.T1 {
			opened[r.Conn] = true
		}
	}
	m.ConnsOpenedAfterSignal = ptr(len(opened))
	if k := killNs(meta); k > 0 {
		n := 0
		for i := range reqs {
			r := &reqs[i]
			if r.Class.Failed() && r.Written > 0 && r.Written < w.T1 && r.End >= k-killLagNs {
				n++
			}
		}
		m.DroppedAtKill = &n
	}
	serviceBeforeSignal(m, w, reqs)
}

// killNs is when the acted-on replica was SIGKILLed: the engine's first
// SIGKILL event for it, else its exit when it exited 137; 0 when it was not
// SIGKILLed.
func killNs(meta record.Meta) int64 {
	if meta.Action != nil {
		for _, k := range meta.Action.Kills {
			if k.Signal == 9 {
				return k.TimeNs
			}
		}
	}
	i := shutdown.ActedReplica(meta)
	if i < 0 {
		return 0
	}
	if r := meta.Replicas[i]; r.Exited && r.ExitCode != nil && *r.ExitCode == 137 {
		return r.ExitedNs
	}
	return 0
}

// serviceBeforeSignal measures how the server served before the action:
// service_ms is the fastest time from a request's last byte to its first
// response byte (work without waiting); a request waited when its time to
// first byte exceeded that by more than one service time (at least
// queueWaitFloorNs); served_concurrency is the rate of ok answers times the
// service time (Little's law): how many requests it worked on at once — a
// lower bound when the service time varies, since service_ms is the
// fastest.
func serviceBeforeSignal(m *Metrics, w shutdown.Window, reqs []record.Request) {
	var ttfb, ends []int64
	for i := range reqs {
		r := &reqs[i]
		if r.Class != record.ClassOK || r.End > w.T0 || r.Written <= 0 || r.FirstByte < r.Written || r.Hostile != "" {
			continue
		}
		ttfb = append(ttfb, r.FirstByte-r.Written)
		ends = append(ends, r.End)
	}
	if len(ttfb) == 0 {
		return
	}
	service := slices.Min(ttfb)
	waited := 0
	for _, t := range ttfb {
		if t-service > max(service, queueWaitFloorNs) {
			waited++
		}
	}
	m.ServiceMs, m.WaitedBeforeSignal = ptr(float64(service)/1e6), &waited
	if first, last := slices.Min(ends), slices.Max(ends); len(ends) >= 5 && last > first {
		rate := float64(len(ends)-1) / float64(last-first) // answers per ns
		m.ServedConcurrency = ptr(rate * float64(service))
	}
}
