package report

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// conn is a request on connection id whose dial completed at connected ms
// (0: a reused connection), written at written ms, ending at end ms.
func conn(class record.Class, id uint64, connected, written, end float64) record.Request {
	return record.Request{Type: "req", Class: class, Conn: id, Start: ms(written - 1), Connected: ms(connected), Written: ms(written), End: ms(end)}
}

// stopMeta is a docker stop sent at 1000 ms whose signal the engine
// reported at 1010 ms (T1), with a SIGKILL event at killMs (0: none) and
// the replica's exit code and time (code -1: it never exited).
func stopMeta(killMs float64, code int, exitMs float64) record.Meta {
	a := &record.Action{Kind: "stop", SentNs: ms(1000), Kills: []record.Kill{{TimeNs: ms(1010), Signal: 15}}}
	if killMs > 0 {
		a.Kills = append(a.Kills, record.Kill{TimeNs: ms(killMs), Signal: 9})
	}
	rep := record.Replica{Name: "r0"}
	if code >= 0 {
		rep.Exited, rep.ExitCode, rep.ExitedNs = true, &code, ms(exitMs)
	}
	return record.Meta{Action: a, Replicas: []record.Replica{rep}}
}

// TestConnsOpenedAfterSignal: every connection whose dial completed at or
// after T1 counts once, whatever its requests became; reused connections
// and dials before T1 do not.
func TestConnsOpenedAfterSignal(t *testing.T) {
	reqs := []record.Request{
		conn(record.ClassOK, 1, 100, 101, 400),         // before the signal
		conn(record.ClassEOF, 1, 0, 900, 1005),         // reused, cut at the signal
		conn(record.ClassOK, 2, 1020, 1021, 3500),      // queued in a kept backlog, answered late
		conn(record.ClassOK, 2, 0, 3501, 3800),         // the same connection again: counted once
		conn(record.ClassTimeout, 3, 1030, 1031, 9000), // accepted by the kernel, never answered
		conn(record.ClassRefused, 0, 0, 1040, 1041),    // no dial completed
		conn(record.ClassOK, 4, 1005, 1006, 1300),      // dialed inside the delivery window
	}
	m := Compute(stopMeta(0, -1, 0), reqs)
	if m.ConnsOpenedAfterSignal == nil || *m.ConnsOpenedAfterSignal != 2 {
		t.Errorf("conns_opened_after_signal = %v, want 2 (conns 2 and 3)", m.ConnsOpenedAfterSignal)
	}
	if m.NewConnsAfterSignal == nil || *m.NewConnsAfterSignal != 1 {
		t.Errorf("new_conns_after_signal = %v, want 1 (conn 2: served ok)", m.NewConnsAfterSignal)
	}
	if m.DroppedAtKill != nil {
		t.Errorf("dropped_at_kill = %d, want null (never SIGKILLed)", *m.DroppedAtKill)
	}
}

// TestDroppedAtKill: only failed requests written before T1 that were still
// open at the SIGKILL count; a request the signal itself cut, one written
// after T1, and one answered do not.
func TestDroppedAtKill(t *testing.T) {
	reqs := []record.Request{
		rq(record.ClassEOF, 900, 901, 1003),      // cut at the signal (a reload, a fast stop)
		rq(record.ClassReset, 950, 951, 11002),   // held through the grace period, cut by SIGKILL
		rq(record.ClassEOF, 1005, 1006, 10950),   // in the delivery window, cut 50 ms before the event: the lag allows it
		rq(record.ClassReset, 1500, 1501, 11003), // written after T1: the grace period's, not the drain's
		rq(record.ClassOK, 990, 991, 4000),       // drained
		rq(record.ClassTimeout, 980, 981, 10500), // ended 500 ms before the SIGKILL: not cut by it
	}
	tests := []struct {
		name string
		meta record.Meta
		want int // -1: null
	}{
		{"engine SIGKILL event", stopMeta(11000, 137, 11010), 2},
		{"no SIGKILL event: the exit at 137 stands for it", stopMeta(0, 137, 11000), 2},
		{"exited by itself", stopMeta(0, 0, 4100), -1},
		{"never exited", stopMeta(0, -1, 0), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Compute(tt.meta, reqs)
			got := -1
			if m.DroppedAtKill != nil {
				got = *m.DroppedAtKill
			}
			if got != tt.want {
				t.Errorf("dropped_at_kill = %d, want %d", got, tt.want)
			}
		})
	}
}

// ttfb is an ok request written at written ms whose first byte came after
// wait ms, ending 1 ms later.
func ttfb(written, wait float64) record.Request {
	r := rq(record.ClassOK, written, written, written+wait+1)
	r.FirstByte = ms(written + wait)
	return r
}

// TestServiceBeforeSignal: the service time is the fastest first byte; a
// request waited when it took more than one service time longer (10 ms at
// least); the concurrency served is Little's law over the unqueued ones.
func TestServiceBeforeSignal(t *testing.T) {
	meta := record.Meta{Action: &record.Action{Kind: "signal", SentNs: ms(5000), ReturnedNs: ms(5010)}}
	tests := []struct {
		name        string
		reqs        []record.Request
		service     float64 // -1: null
		waited      int
		concurrency float64 // -1: null
	}{
		{"no ok request before the action", []record.Request{ttfb(5100, 300)}, -1, -1, -1},
		// Four workers, 300 ms each, 20 clients: one answer every 75 ms;
		// most requests waited in the backlog.
		{"four workers, twenty clients", func() []record.Request {
			var rs []record.Request
			for i := range 9 {
				wait := 300.0
				if i >= 4 {
					wait = 1500 // queued behind the four
				}
				rs = append(rs, ttfb(3000+float64(i)*75-wait, wait))
			}
			return rs
		}(), 300, 5, 4},
		// A scheduler hiccup of 8 ms on a 1 ms service is not a wait.
		{"fast service, noise under the floor", []record.Request{ttfb(10, 1), ttfb(20, 9), ttfb(30, 1), ttfb(40, 1), ttfb(50, 1)}, 1, 0, 0.1},
		{"too few answers for a rate", []record.Request{ttfb(10, 300), ttfb(20, 300)}, 300, 0, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Compute(meta, tt.reqs)
			f := func(p *float64) float64 {
				if p == nil {
					return -1
				}
				return *p
			}
			waited := -1
			if m.WaitedBeforeSignal != nil {
				waited = *m.WaitedBeforeSignal
			}
			if got := f(m.ServiceMs); got != tt.service {
				t.Errorf("service_ms = %v, want %v", got, tt.service)
			}
			if waited != tt.waited {
				t.Errorf("waited_before_signal = %d, want %d", waited, tt.waited)
			}
			if got := f(m.ServedConcurrency); (got < 0) != (tt.concurrency < 0) || got >= 0 && (got < tt.concurrency*0.95 || got > tt.concurrency*1.05) {
				t.Errorf("served_concurrency = %v, want %v (±5 %%)", got, tt.concurrency)
			}
		})
	}
}
