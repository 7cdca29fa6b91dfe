package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// Phase is where a request falls relative to the delivery window.
type Phase int

// The phases. Every request that is not not_sent is in exactly one.
const (
	// PhaseBefore: it ended at or before T0.
	PhaseBefore Phase = iota
	// PhaseInflight: fully written before T0 and still open at T0: the
	// server may have held it when the signal arrived.
	PhaseInflight
	// PhaseWindow: written (or, never fully written, started) in [T0, T1):
	// the signal may or may not have arrived first.
	PhaseWindow
	// PhaseAfter: written (or started) at or after T1: the signal had
	// certainly arrived.
	PhaseAfter
)

// PhaseOf places r relative to w. A request's "sent" moment is when its
// last byte was written; one never fully written (refused, reset while
// writing) counts from its start and is never in flight, since the server
// cannot have held a request it never fully received.
func PhaseOf(r *record.Request, w shutdown.Window) Phase {
	switch sent := sentAt(r); {
	case r.End <= w.T0:
		return PhaseBefore
	case r.Written > 0 && r.Written < w.T0:
		return PhaseInflight
	case sent < w.T1:
		return PhaseWindow
	default:
		return PhaseAfter
	}
}

func sentAt(r *record.Request) int64 {
	if r.Written > 0 {
		return r.Written
	}
	return r.Start
}

// IsIdleCloseRace reports whether a failed request has the idle-close
// signature: the connection had carried a request before, and it ended in
// eof or reset with no response byte. The server closed a keep-alive
// connection it considered idle as the client wrote onto it; HTTP lets a
// client retry an idempotent request that failed this way.
func IsIdleCloseRace(r *record.Request) bool { return shutdown.IsIdleCloseRace(r) }

// phaseCounts are the phase metrics of one run.
type phaseCounts struct {
	dropped, window, after, before, idleRace, inflight, servedAfter int
	afterExit, whileRunning, idleBefore                             int
	// newConns are the connections dialed after T1 that carried an ok
	// response: the server accepted new connections after the signal.
	newConns map[uint64]bool
	// windowReached counts the window's failures that may have reached
	// the server (every class but refused): candidate drops.
	windowReached int
	// steadyLat are the latencies (ns) of ok requests that ended before T0.
	steadyLat []float64
	// heldServed counts the ok requests written before T0 that ended at or
	// after T1: work the server held when the signal had surely arrived,
	// and answered.
	heldServed int
}

// heldEvidence is how many requests held across the whole delivery window
// and answered make a slow delivery conclusive: a server that drops its
// in-flight work cannot answer them (one or two could be responses it
// finished just before the signal that a busy client read after T1).
const heldEvidence = 3

// computePhases fills the phase metrics: every failed request of a run with
// an action is in exactly one of failed_before_signal, dropped_inflight,
// failed_in_delivery_window and failed_after_signal (see docs/metrics.md).
func computePhases(m *Metrics, meta record.Meta, reqs []record.Request) {
	exitedNs := actedExitNs(meta)
	w, ok := shutdown.DeliveryWindow(meta)
	if !ok {
		n := 0
		for i := range reqs {
			if IsFailed(reqs[i].Class) && (exitedNs == 0 || reqs[i].Start < exitedNs) {
				n++
			}
		}
		m.FailedWhileRunning = &n
		return
	}
	var c phaseCounts
	for i := range reqs {
		c.add(&reqs[i], w, exitedNs)
	}
	m.SignalRef = w.Ref
	m.DeliveryWindowMs = ptr(float64(w.T1-w.T0) / 1e6)
	if a := meta.Action; a.ReturnedNs >= a.SentNs {
		m.ActionCallMs = ptr(float64(a.ReturnedNs-a.SentNs) / 1e6)
	}
	if t := shutdown.AppSignalNs(meta); t > 0 {
		m.SignalSeenMs = ptr(float64(t-w.T0) / 1e6)
	}
	m.DroppedInflight, m.FailedInDeliveryWindow = &c.dropped, &c.window
	m.FailedAfterSignal, m.FailedBeforeSignal = &c.after, &c.before
	m.IdleCloseRace, m.InflightAtAction, m.ServedAfterSignal = &c.idleRace, &c.inflight, &c.servedAfter
	m.FailedWhileRunning = &c.whileRunning
	m.IdleCloseBeforeSignal, m.NewConnsAfterSignal = &c.idleBefore, ptr(len(c.newConns))
	if exitedNs > 0 {
		m.FailedAfterExit = &c.afterExit
	}
	if w.Ref == shutdown.SignalRefSent {
		m.Notes = append(m.Notes, "signal delivery not bounded by any measurement (no app signal event, engine event, return or exit): the delivery window is empty")
	}
	judgeInconclusive(m, w, &c)
	observedDrain(m, w, reqs, servedBy(meta))
	noteUpstreams(m, meta, reqs)
}

// servedBy returns the test "this request was served by the acted-on
// replica": every request on a direct topology; behind a proxy, the ones
// whose response named the replica as its upstream (nil when the replica
// is unknown).
func servedBy(meta record.Meta) func(*record.Request) bool {
	if meta.Topology == "" {
		return func(*record.Request) bool { return true }
	}
	i := shutdown.ActedReplica(meta)
	if i < 0 {
		return nil
	}
	prefix := meta.Replicas[i].Name + ":"
	return func(r *record.Request) bool { return strings.HasPrefix(r.Upstream, prefix) }
}

// noteUpstreams adds, behind a proxy, a note with the requests each
// upstream answered (ok / other statuses), so an outlier run can be traced
// to an uneven split.
func noteUpstreams(m *Metrics, meta record.Meta, reqs []record.Request) {
	if meta.Topology == "" {
		return
	}
	type split struct{ ok, other int }
	by := map[string]*split{}
	for i := range reqs {
		r := &reqs[i]
		if r.Upstream == "" {
			continue
		}
		s := by[r.Upstream]
		if s == nil {
			s = &split{}
			by[r.Upstream] = s
		}
		if r.Class == record.ClassOK {
			s.ok++
		} else {
			s.other++
		}
	}
	if len(by) == 0 {
		return
	}
	var parts []string
	for _, u := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%s %d ok, %d other", u, by[u].ok, by[u].other))
	}
	m.Notes = append(m.Notes, "requests per upstream: "+strings.Join(parts, "; "))
}

// add counts one request into c.
func (c *phaseCounts) add(r *record.Request, w shutdown.Window, exitedNs int64) {
	if r.Class == record.ClassNotSent {
		return
	}
	if r.Start < w.T0 && r.End > w.T0 {
		c.inflight++
	}
	failed := IsFailed(r.Class)
	if failed && (exitedNs == 0 || r.Start < exitedNs) {
		c.whileRunning++
	}
	if failed && exitedNs > 0 && r.Start >= exitedNs {
		c.afterExit++
	}
	switch PhaseOf(r, w) {
	case PhaseBefore:
		if failed {
			c.before++
			if IsIdleCloseRace(r) {
				c.idleBefore++
			}
		}
		if r.Class == record.ClassOK {
			c.steadyLat = append(c.steadyLat, float64(r.LatencyNs()))
		}
	case PhaseInflight:
		if failed {
			c.dropped++
		}
		if r.Class == record.ClassOK && r.End >= w.T1 {
			c.heldServed++
		}
	case PhaseWindow:
		if failed {
			c.window++
			if r.Class != record.ClassRefused {
				c.windowReached++
			}
		}
	case PhaseAfter:
		switch {
		case r.Class == record.ClassOK:
			c.servedAfter++
			if r.Connected >= w.T1 && r.Conn != 0 {
				if c.newConns == nil {
					c.newConns = map[uint64]bool{}
				}
				c.newConns[r.Conn] = true
			}
		case failed:
			c.after++
			if IsIdleCloseRace(r) {
				c.idleRace++
			}
		}
	}
}

// actedExitNs is the acted-on replica's exit time (0: it did not exit).
func actedExitNs(meta record.Meta) int64 {
	if i := shutdown.ActedReplica(meta); i >= 0 && meta.Replicas[i].Exited {
		return meta.Replicas[i].ExitedNs
	}
	return 0
}

// observedDrain measures the drain from the outside, for any image: from T0
// to the last complete response to work the replica had accepted — a request
// written before T1 and still open at T0 that ended ok once the signal had
// surely arrived (at or after T1), served by the acted-on replica (behind a
// proxy: the upstream its response named). A request that ended before T1
// may have finished before the server had the signal: it drained nothing,
// so a fast shutdown that drops everything shows no drain ("none"). It
// also notes which request that was, so a long drain can be traced to one
// client and connection.
func observedDrain(m *Metrics, w shutdown.Window, reqs []record.Request, served func(*record.Request) bool) {
	if served == nil {
		return
	}
	var last *record.Request
	for i := range reqs {
		r := &reqs[i]
		if r.Class != record.ClassOK || r.End < w.T1 || r.End <= w.T0 || !served(r) {
			continue
		}
		if p := PhaseOf(r, w); p != PhaseInflight && p != PhaseWindow {
			continue
		}
		if last == nil || r.End > last.End {
			last = r
		}
	}
	if last == nil {
		return
	}
	m.DrainObservedMs = ptr(float64(last.End-w.T0) / 1e6)
	m.Notes = append(m.Notes, fmt.Sprintf("drain_observed_ms: last accepted request answered %s ms after the action: worker %d, conn %d, %s %s, written %s ms %s the action",
		FormatNumber(KindMs, *m.DrainObservedMs), last.Worker, last.Conn, last.Method, last.Path,
		FormatNumber(KindMs, absMs(last.Written-w.T0)), beforeAfter(last.Written-w.T0)))
}

func absMs(ns int64) float64 {
	if ns < 0 {
		ns = -ns
	}
	return float64(ns) / 1e6
}

func beforeAfter(ns int64) string {
	if ns < 0 {
		return "before"
	}
	return "after"
}

// judgeInconclusive marks the phase split inconclusive when slow signal
// delivery could hide dropped in-flight work: no request written before T0
// failed, but some that may have reached the server failed inside the
// delivery window, the window is at least a third of a steady-state
// request (the median latency of the ok requests that ended before T0),
// and fewer than heldEvidence requests written before T0 were still open
// at T1 and answered. A server that drops its in-flight requests then
// shows them in the window, not in dropped_inflight: measured on a loaded
// engine where docker kill took 964 ms. Requests it held across the whole
// window and answered are direct evidence that it does not drop them, so
// a slow delivery with such evidence stays conclusive (lighttpd's graceful
// SIGINT on a busy 2-core CI machine was called inconclusive without this
// rule). dropped_inflight becomes null ("inconclusive") so that an
// expectation such as dropped_inflight == 0 fails instead of passing.
func judgeInconclusive(m *Metrics, w shutdown.Window, c *phaseCounts) {
	if c.dropped > 0 || c.windowReached == 0 || len(c.steadyLat) == 0 || c.heldServed >= heldEvidence {
		return
	}
	slices.Sort(c.steadyLat)
	period := stat.Quantile(0.5, stat.Empirical, c.steadyLat, nil)
	if float64(w.T1-w.T0) < period/3 {
		return
	}
	m.PhaseInconclusive = true
	m.DroppedInflight = nil
	m.Notes = append(m.Notes, fmt.Sprintf("phase split inconclusive: the signal's delivery window was %s ms (bounded by %s), at least a third of a %s ms request, "+
		"%d requests that may have reached the server failed inside it, and only %d requests written before it were still open at its end and answered (%d would show the server holds its in-flight work): "+
		"the failures may be dropped in-flight work; dropped_inflight is null. Rerun on a quieter engine",
		FormatNumber(KindMs, float64(w.T1-w.T0)/1e6), w.Ref, FormatNumber(KindMs, period/1e6), c.windowReached, c.heldServed, heldEvidence))
}
