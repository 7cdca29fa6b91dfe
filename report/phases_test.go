package report

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// window is the phase metrics of one run, -1 for null.
type window struct {
	before, dropped, inWindow, after, idleRace, inflight, servedAfter int
}

func windowOf(m Metrics) window {
	v := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	return window{v(m.FailedBeforeSignal), v(m.DroppedInflight), v(m.FailedInDeliveryWindow), v(m.FailedAfterSignal),
		v(m.IdleCloseRace), v(m.InflightAtAction), v(m.ServedAfterSignal)}
}

// rq builds a request over [start, end] ms written at written ms (0: never
// fully written).
func rq(class record.Class, start, written, end float64) record.Request {
	return record.Request{Type: "req", Class: class, Start: ms(start), Written: ms(written), End: ms(end)}
}

// reused marks r as sent on a keep-alive connection that had carried a
// request before.
func reused(r record.Request) record.Request { r.Reused = true; return r }

// TestPhaseClassification pins the partition of failed requests around the
// delivery window. In every row the action is sent at T0 = 1000 ms and
// docker kill returns at 1050 ms, so T1 = 1050 ms (no app or engine event).
func TestPhaseClassification(t *testing.T) {
	tests := []struct {
		name string
		r    record.Request
		want window
	}{
		// An ok request over well before the action counts nowhere.
		{"ok before", rq(record.ClassOK, 0, 1, 500), window{}},
		// A failure that ended at T0 is before the signal (Start < T0 < End is required to be open).
		{"eof ending at T0", rq(record.ClassEOF, 500, 501, 1000), window{before: 1}},
		// Written before T0, reset after it: the server may have held it: dropped.
		{"reset across", rq(record.ClassReset, 900, 901, 1100), window{dropped: 1, inflight: 1}},
		// The false pass that was reported: a request written 3 ms after the
		// stop was sent, dropped when the process died. It is in the window,
		// never moved to "after the signal".
		{"written just after T0", rq(record.ClassEOF, 999, 1003, 1040), window{inWindow: 1, inflight: 1}},
		// Same, on a reused connection with no response byte: still the
		// window (the idle-close race is only named after T1).
		{"race shape inside window", reused(rq(record.ClassEOF, 1001, 1002, 1003)), window{inWindow: 1}},
		// Started before T0 but not fully written until after T1: after.
		{"slow write", rq(record.ClassReset, 990, 1060, 1070), window{after: 1, inflight: 1}},
		// A refused connect spanning T0: never written, counted from its start: window.
		{"refused across", rq(record.ClassRefused, 995, 0, 1010), window{inWindow: 1, inflight: 1}},
		// Refused after T1: after.
		{"refused after", rq(record.ClassRefused, 1500, 0, 1501), window{after: 1}},
		// The idle-close race: reused connection, eof, no response byte, after T1.
		{"idle close race", reused(rq(record.ClassEOF, 1200, 1200, 1201)), window{after: 1, idleRace: 1}},
		// A reset after a response byte is not the race.
		{"reset mid-response", func() record.Request {
			r := reused(rq(record.ClassReset, 1200, 1200, 1300))
			r.FirstByte = ms(1250)
			return r
		}(), window{after: 1}},
		// A fresh connection closed without a response is not the race either.
		{"eof on new conn", rq(record.ClassEOF, 1200, 1200, 1201), window{after: 1}},
		// A 503 written after T1 is a failure after the signal.
		{"503 after", func() record.Request {
			r := rq(record.ClassHTTPError, 1100, 1100, 1101)
			r.Status = 503
			return r
		}(), window{after: 1}},
		// An ok request spanning T0 is in flight, not dropped.
		{"ok across", rq(record.ClassOK, 900, 901, 1100), window{inflight: 1}},
		// Ok, written after T1: served after the signal.
		{"served after", rq(record.ClassOK, 1050, 1050, 1350), window{servedAfter: 1}},
		// Ok, written inside the window: neither served after nor failed.
		{"ok in window", rq(record.ClassOK, 1010, 1010, 1310), window{}},
		// not_sent is never in flight, served or failed.
		{"not_sent across", rq(record.ClassNotSent, 900, 0, 1100), window{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta := record.Meta{Action: &record.Action{Kind: "signal", SentNs: ms(1000), ReturnedNs: ms(1050)},
				Replicas: []record.Replica{{Name: "replica-0"}}}
			m := Compute(meta, []record.Request{tt.r})
			if got := windowOf(m); got != tt.want {
				t.Errorf("phases = %+v, want %+v", got, tt.want)
			}
			// The four failure phases partition the failed requests.
			if sum := *m.FailedBeforeSignal + *m.DroppedInflight + *m.FailedInDeliveryWindow + *m.FailedAfterSignal; sum != m.Failed {
				t.Errorf("phases sum to %d, failed = %d", sum, m.Failed)
			}
		})
	}
}

// TestLockstepVersusStaggered is the false pass, in records: 20 clients,
// 300 ms requests, a server that drops everything in flight when the signal
// arrives 30 ms after docker stop was sent. Whatever the phase of the
// clients, the drops stay visible: either in dropped_inflight (written before
// T0) or in failed_in_delivery_window; never in failed_after_signal.
func TestLockstepVersusStaggered(t *testing.T) {
	for _, offset := range []float64{0, 1, 3, 10, 29, 150} {
		var reqs []record.Request
		for c := 0; c < 20; c++ {
			// Client c's request was written offset ms (lockstep) or
			// spread over one period (staggered) before... or after T0.
			w := 1000 - 300 + offset + float64(c)*15
			if w >= 1000+30 {
				w -= 300
			}
			reqs = append(reqs, rq(record.ClassEOF, w, w, 1030))
		}
		meta := record.Meta{Action: &record.Action{Kind: "stop", SentNs: ms(1000), Kills: []record.Kill{{TimeNs: ms(1030), Signal: 15}}},
			Replicas: []record.Replica{{Exited: true, ExitCode: new(int), ExitedNs: ms(1030)}}}
		m := Compute(meta, reqs)
		if got := *m.DroppedInflight + *m.FailedInDeliveryWindow; got != 20 || *m.FailedAfterSignal != 0 {
			t.Errorf("offset %v: dropped %d + window %d, after %d; want 20 lost, 0 after", offset, *m.DroppedInflight, *m.FailedInDeliveryWindow, *m.FailedAfterSignal)
		}
		if *m.InflightAtAction > 20 {
			t.Errorf("offset %v: inflight_at_action %d > 20 clients", offset, *m.InflightAtAction)
		}
	}
}

// TestObservedDrain measures the drain from the client side: the last ok
// response to a request the replica had accepted (written before T1).
func TestObservedDrain(t *testing.T) {
	meta := record.Meta{Action: &record.Action{Kind: "signal", SentNs: ms(1000), ReturnedNs: ms(1020)},
		Replicas: []record.Replica{{Name: "replica-0"}}}
	reqs := []record.Request{
		rq(record.ClassOK, 800, 800, 1100),   // accepted before T0, answered 100 ms after it
		rq(record.ClassOK, 1010, 1010, 1290), // written in the window, answered 290 ms after T0
		rq(record.ClassOK, 1100, 1100, 1400), // written after T1: not part of the drain
		rq(record.ClassEOF, 900, 900, 1500),  // dropped: not a response
	}
	m := Compute(meta, reqs)
	if m.DrainObservedMs == nil || *m.DrainObservedMs != 290 {
		t.Errorf("drain_observed_ms = %v, want 290", m.DrainObservedMs)
	}
	// Behind a proxy only the responses that name the acted-on replica as
	// their upstream count; the note counts requests per upstream.
	meta.Topology = "caddy"
	if m := Compute(meta, reqs); m.DrainObservedMs != nil {
		t.Errorf("behind a proxy, no upstream named: drain_observed_ms = %v, want null", *m.DrainObservedMs)
	}
	reqs[0].Upstream, reqs[1].Upstream, reqs[2].Upstream = "replica-0:8080", "replica-1:8080", "replica-0:8080"
	m = Compute(meta, reqs)
	if m.DrainObservedMs == nil || *m.DrainObservedMs != 100 {
		t.Errorf("behind a proxy drain_observed_ms = %v, want 100 (replica-0's last accepted request)", m.DrainObservedMs)
	}
	if !strings.Contains(strings.Join(m.Notes, "\n"), "requests per upstream: replica-0:8080 2 ok, 0 other; replica-1:8080 1 ok, 0 other") {
		t.Errorf("notes = %q", m.Notes)
	}
	if m := Compute(meta, reqs[3:]); m.DrainObservedMs != nil {
		t.Errorf("nothing answered: drain_observed_ms = %v, want null", *m.DrainObservedMs)
	}
}

// TestFailedWhileRunning excludes only the failures that started after the
// acted-on replica exited.
func TestFailedWhileRunning(t *testing.T) {
	meta := record.Meta{Action: &record.Action{Kind: "signal", SentNs: ms(1000), ReturnedNs: ms(1010)},
		Replicas: []record.Replica{{Exited: true, ExitCode: new(int), ExitedNs: ms(1200)}}}
	reqs := []record.Request{
		rq(record.ClassReset, 500, 500, 600),   // before the signal
		rq(record.ClassReset, 900, 900, 1100),  // dropped
		rq(record.ClassRefused, 1100, 0, 1101), // listener closed, process still running
		rq(record.ClassRefused, 1300, 0, 1301), // after the exit
		rq(record.ClassOK, 1000, 1000, 1100),
	}
	m := Compute(meta, reqs)
	if *m.FailedWhileRunning != 3 || *m.FailedAfterExit != 1 || m.Failed != 4 {
		t.Errorf("while running %d after exit %d failed %d; want 3 1 4", *m.FailedWhileRunning, *m.FailedAfterExit, m.Failed)
	}
	meta.Action = nil
	meta.Replicas[0].Exited = false
	if m := Compute(meta, reqs); *m.FailedWhileRunning != 4 {
		t.Errorf("no action, never exited: failed_while_running %d, want 4", *m.FailedWhileRunning)
	}
}

// held is n ok requests written before T0 (1000 ms) that ended after a
// 1964 ms T1: work held across the whole delivery window, and answered.
func held(n int) []record.Request {
	var out []record.Request
	for i := range n {
		out = append(out, rq(record.ClassOK, 900+float64(i), 900+float64(i), 1970))
	}
	return out
}

// TestInconclusiveSplit: when docker kill took longer than a third of a
// request (measured: 964 ms on a loaded engine), a server that drops every
// in-flight request shows its drops in the delivery window, none before
// T0. dropped_inflight must not read 0 then: it is null ("inconclusive"),
// so dropped_inflight == 0 cannot pass. A narrow window, drops before T0,
// only refused connects in the window, or three requests held across the
// whole window and answered keep the split conclusive.
func TestInconclusiveSplit(t *testing.T) {
	steady := []record.Request{rq(record.ClassOK, 100, 100, 400), rq(record.ClassOK, 400, 400, 700), rq(record.ClassOK, 600, 600, 900)}
	tests := []struct {
		name       string
		returnMs   float64
		reqs       []record.Request
		inconclude bool
	}{
		{"slow kill, drops in window", 1964, []record.Request{rq(record.ClassReset, 1200, 1200, 1964), rq(record.ClassEOF, 1500, 1500, 1964)}, true},
		{"narrow window", 1020, []record.Request{rq(record.ClassReset, 1010, 1010, 1020)}, false},
		{"drops before T0 too", 1964, []record.Request{rq(record.ClassReset, 900, 900, 1964), rq(record.ClassReset, 1500, 1500, 1964)}, false},
		{"only refused in window", 1964, []record.Request{rq(record.ClassRefused, 1500, 0, 1501)}, false},
		{"nothing failed", 1964, nil, false},
		// A graceful server on a busy engine: the window is long, but three
		// requests written before T0 were answered after T1, which a server
		// that drops its in-flight work cannot do.
		{"slow kill, held requests answered", 1964, append(held(3), rq(record.ClassEOF, 1500, 1500, 1510)), false},
		// Two could be responses finished just before the signal and read
		// late by a busy client: not enough.
		{"slow kill, two held answered", 1964, append(held(2), rq(record.ClassEOF, 1500, 1500, 1510)), true},
		// Answered before T1: the server may have finished them before the
		// signal arrived; no evidence.
		{"slow kill, held answered inside the window", 1964, append([]record.Request{rq(record.ClassOK, 900, 900, 1900), rq(record.ClassOK, 910, 910, 1900), rq(record.ClassOK, 920, 920, 1900)},
			rq(record.ClassEOF, 1500, 1500, 1510)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta := record.Meta{Action: &record.Action{Kind: "signal", SentNs: ms(1000), ReturnedNs: ms(tt.returnMs)},
				Replicas: []record.Replica{{Name: "replica-0"}}}
			m := Compute(meta, append(append([]record.Request{}, steady...), tt.reqs...))
			if m.PhaseInconclusive != tt.inconclude {
				t.Fatalf("phase_inconclusive = %v, want %v (notes %q)", m.PhaseInconclusive, tt.inconclude, m.Notes)
			}
			v, _ := m.Value("dropped_inflight")
			if tt.inconclude && (!v.Null || v.Why != "inconclusive" || m.DroppedInflight != nil) {
				t.Errorf("dropped_inflight = %+v, want null (inconclusive)", v)
			}
			if !tt.inconclude && v.Null {
				t.Errorf("dropped_inflight null in a conclusive run")
			}
		})
	}
}

// TestDrainNoneForFastShutdown: a request that ended between T0 and T1
// may have finished before the server had the signal; it drained nothing.
// A fast shutdown that drops every in-flight request (and lets one finish
// inside the delivery window) reports no drain, not one of a few ms.
func TestDrainNoneForFastShutdown(t *testing.T) {
	meta := record.Meta{Action: &record.Action{Kind: "signal", SentNs: ms(1000), ReturnedNs: ms(1020)},
		Replicas: []record.Replica{{Name: "replica-0"}}}
	reqs := []record.Request{
		rq(record.ClassOK, 800, 800, 1005),    // ended 5 ms after T0, before T1: not a drain
		rq(record.ClassReset, 900, 900, 1030), // dropped
		rq(record.ClassReset, 950, 950, 1031), // dropped
	}
	if m := Compute(meta, reqs); m.DrainObservedMs != nil {
		t.Errorf("drain_observed_ms = %v, want null (none)", *m.DrainObservedMs)
	}
}

// TestConnectionMetrics pins idle_close_before_signal (a server closing
// keep-alive connections unannounced, before any signal) and
// new_conns_after_signal (connections dialed after T1 and served ok).
// T0 = 1000 ms, T1 = 1050 ms.
func TestConnectionMetrics(t *testing.T) {
	dialed := func(r record.Request, conn uint64, at float64) record.Request {
		r.Conn, r.Connected = conn, ms(at)
		return r
	}
	onConn := func(r record.Request, conn uint64) record.Request { r.Conn = conn; return r }
	meta := record.Meta{Action: &record.Action{Kind: "signal", SentNs: ms(1000), ReturnedNs: ms(1050)},
		Replicas: []record.Replica{{Name: "replica-0"}}}
	reqs := []record.Request{
		reused(rq(record.ClassEOF, 500, 500, 501)),              // idle close before the signal
		rq(record.ClassEOF, 600, 600, 601),                      // eof on a fresh connection: not the idle-close shape
		reused(onConn(rq(record.ClassOK, 1100, 1100, 1200), 1)), // a kept connection after the signal: not new
		dialed(rq(record.ClassOK, 1100, 1101, 1300), 2, 1100),   // dialed after T1, served: new
		reused(onConn(rq(record.ClassOK, 1300, 1300, 1400), 2)), // the same connection again: counted once
		dialed(rq(record.ClassOK, 1010, 1020, 1300), 3, 1010),   // dialed inside the window: not after T1
		dialed(rq(record.ClassRefused, 1200, 0, 1201), 0, 0),    // refused: no connection
	}
	m := Compute(meta, reqs)
	if m.IdleCloseBeforeSignal == nil || *m.IdleCloseBeforeSignal != 1 {
		t.Errorf("idle_close_before_signal = %v, want 1", m.IdleCloseBeforeSignal)
	}
	if m.NewConnsAfterSignal == nil || *m.NewConnsAfterSignal != 1 {
		t.Errorf("new_conns_after_signal = %v, want 1", m.NewConnsAfterSignal)
	}
}

// TestEnvOverriddenNote: a user image whose own variable the scenario's
// target.env replaced did not run exactly as it ships; the run says so.
func TestEnvOverriddenNote(t *testing.T) {
	meta := record.Meta{Action: &record.Action{Kind: "signal", SentNs: ms(1000), ReturnedNs: ms(1020)},
		Replicas: []record.Replica{{Name: "replica-0", Env: map[string]string{"DRAIN_MS": "0"}, EnvOverridden: map[string]string{"DRAIN_MS": "abc"}}}}
	m := Compute(meta, nil)
	if want := "target.env overrides the image's own environment: DRAIN_MS=0 (image: abc)"; !strings.Contains(strings.Join(m.Notes, "\n"), want) {
		t.Errorf("notes %q, want %q", m.Notes, want)
	}
}
