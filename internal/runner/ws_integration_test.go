package runner_test

import (
	"fmt"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/websockets"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// wsRun runs scenario name once with sets and returns its ws metrics,
// failing when the run is not a valid ws run whose clients all printed
// their totals.
func wsRun(t *testing.T, name string, clients int, sets ...string) report.Run {
	t.Helper()
	r := newRunner(t, append([]string{"runs=1", fmt.Sprintf("load.ws.clients=%d", clients)}, sets...)...)
	run := runOne(t, r, name)
	if run.Meta.LoadKind != record.LoadKindWS || websockets.Of(&run.Metrics) == nil {
		t.Fatalf("load kind %q, ws metrics %v: want a ws run", run.Meta.LoadKind, websockets.Of(&run.Metrics))
	}
	if w := websockets.Of(&run.Metrics); w.WSClients != clients {
		t.Fatalf("%d clients printed their totals, want %d", w.WSClients, clients)
	}
	return run
}

// TestWSRetire is W2 and W3 on both runtimes (ws-retire: docker stop -t 6
// at 2 s, 50 clients of which 3 raw peers that never answer a close
// frame). none and close retire no stream (no 1001); Go's close-mode
// Shutdown returns without its hijacked connections and the process exits,
// Node's close() waits for them until the grace period's SIGKILL; full
// sends 1001 to every client spread over CLOSE_SPREAD_MS (1 s), terminates
// the raw peers at the close deadline and exits 0.
func TestWSRetire(t *testing.T) {
	const clients, raw = 50, 3
	for _, tt := range []struct {
		runtime, mode string
		exit          int
	}{
		{"go", "none", 143}, {"go", "close", 0}, {"go", "full", 0},
		{"node", "close", 137}, {"node", "full", 0},
	} {
		t.Run(tt.runtime+"-"+tt.mode, func(t *testing.T) {
			run := wsRun(t, "ws-retire", clients, "target.runtime="+tt.runtime, "target.mode="+tt.mode,
				fmt.Sprintf("load.ws.raw_peers=%d", raw), "load.duration=9s", "action.at=2s")
			m, w := run.Metrics, websockets.Of(&run.Metrics)
			if m.ExitCode == nil || *m.ExitCode != tt.exit {
				t.Errorf("exit %v, want %d", fmtIntP(m.ExitCode), tt.exit)
			}
			t.Logf("exit %v after %v ms; closes 1001 %d, 1006 %d; after the signal p50 %v max %v ms; terminated %d",
				fmtIntP(m.ExitCode), fmtP(m.ExitAfterMs), w.WSClose1001, w.WSClose1006,
				fmtP(w.WSCloseAfterSignalP50Ms), fmtP(w.WSCloseAfterSignalMaxMs), w.WSTerminated)
			if tt.mode != "full" {
				if w.WSClose1001 != 0 || w.WSClose1006 < clients {
					t.Errorf("closes 1001 %d, 1006 %d: mode %s retires no stream, every client sees 1006", w.WSClose1001, w.WSClose1006, tt.mode)
				}
				return
			}
			if w.WSClose1001 != clients || w.WSTerminated != raw {
				t.Errorf("closes 1001 %d, terminated %d: want every client's close 1001 and the %d raw peers terminated",
					w.WSClose1001, w.WSTerminated, raw)
			}
			// A spread, not a spike: the median close lands well inside the
			// 1 s window; the raw peers' connections end at their close
			// frame + the 2 s deadline, so the last close comes after 2 s
			// and before spread + deadline (+ the stop's delivery).
			p50, last := w.WSCloseAfterSignalP50Ms, w.WSCloseAfterSignalMaxMs
			if p50 == nil || last == nil || *p50 < 150 || *p50 > 850 || *last < 2000 || *last > 3500 {
				t.Errorf("close after signal p50 %v, max %v ms: want the median inside the 1 s spread and the raw peers cut at the 2 s deadline",
					fmtP(p50), fmtP(last))
			}
		})
	}
}

// TestWSAdmission is W1 on both runtimes (ws-admission): while replica A
// waits out its pre-stop and the router still forwards to it, the local
// draining flag refuses new upgrades with 503; without it (the
// readiness-only server) they are accepted.
func TestWSAdmission(t *testing.T) {
	for _, runtime := range []string{"go", "node"} {
		for _, admit := range []string{"refuse", "accept"} {
			t.Run(runtime+"-"+admit, func(t *testing.T) {
				run := wsRun(t, "ws-admission", 300, "target.runtime="+runtime, "target.env.UPGRADES_WHILE_DRAINING="+admit)
				w := websockets.Of(&run.Metrics)
				refused, accepted := w.WSRefusedDraining, w.WSAcceptedAfterReadyFalse
				if refused == nil || accepted == nil {
					t.Fatalf("refused %v, accepted %v after ready_false: want both measured", refused, accepted)
				}
				t.Logf("after ready_false: refused (draining) %d, accepted %d", *refused, *accepted)
				if admit == "refuse" && (*refused < 1 || *accepted != 0) || admit == "accept" && (*accepted < 1 || *refused != 0) {
					t.Errorf("refused %d, accepted %d: want only %sed upgrades while draining", *refused, *accepted, admit)
				}
			})
		}
	}
}

// TestWSReplay is W5 on the Go target (ws-replay, 50 clients resuming with
// 3 events of overlap on the survivor): with a replay buffer nothing is
// missed and the overlap is rejected as duplicates; without one the missed
// events are reported as unknown, never as zero loss.
func TestWSReplay(t *testing.T) {
	for _, replay := range []string{"1000", "0"} {
		t.Run("replay-"+replay, func(t *testing.T) {
			run := wsRun(t, "ws-replay", 50, "target.runtime=go", "target.env.EVENTS_REPLAY="+replay)
			w := websockets.Of(&run.Metrics)
			t.Logf("delivered %d, dup rejected %d, dup accepted %d, unknown %d, replayed %d",
				w.WSEventsDelivered, w.WSEventsDupRejected, w.WSEventsDupAccepted, w.WSEventsUnknown, w.WSEventsReplayed)
			if replay != "0" && (w.WSEventsUnknown != 0 || w.WSEventsDupRejected < 1 || w.WSEventsReplayed < 1) {
				t.Errorf("unknown %d, dup rejected %d, replayed %d: want nothing missed, the overlap rejected",
					w.WSEventsUnknown, w.WSEventsDupRejected, w.WSEventsReplayed)
			}
			if replay == "0" && w.WSEventsUnknown < 1 {
				t.Errorf("unknown %d without replay: a reconnect's gap must be reported", w.WSEventsUnknown)
			}
		})
	}
}

// TestWSBudget is W6 on the Go target (ws-budget: a 7 s retirement
// budget): docker stop -t 5 kills the process before it is done, -t 10
// lets it exit by itself.
func TestWSBudget(t *testing.T) {
	for _, tt := range []struct {
		timeout string
		exit    int
		fits    bool
	}{{"5s", 137, false}, {"10s", 0, true}} {
		t.Run(tt.timeout, func(t *testing.T) {
			run := wsRun(t, "ws-budget", 50, "target.runtime=go", "action.grace_period="+tt.timeout)
			m, w := run.Metrics, websockets.Of(&run.Metrics)
			if m.ExitCode == nil || *m.ExitCode != tt.exit || m.Killed != (tt.exit == 137) {
				t.Errorf("exit %v, killed %v: want %d", fmtIntP(m.ExitCode), m.Killed, tt.exit)
			}
			if w.WSBudgetFits == nil || *w.WSBudgetFits != tt.fits {
				t.Errorf("ws_budget_fits %v, want %v", w.WSBudgetFits, tt.fits)
			}
		})
	}
}

// TestWSStorm is W4 on the Go target (ws-storm: replica A closes its
// streams at once; each replica admits 100 handshakes/s): clients that
// retry immediately hammer the survivor's admission, full jitter backs
// off. What is asserted is the storm's cost at the admission, per stream
// the rolled replica retired: handshakes refused for capacity. A refused
// immediate client asks again at once, as often as the machine passes
// handshakes, until the survivor admits it; a jittered one waits up to
// base·2^retry, so its refusals grow with the log of its wait. Measured:
// 2.6–13 refusals per retired stream with immediate against 1.2–1.9 with
// full jitter, in every run on record (17 per policy, two machines; the
// narrowest gap, 2.58 against 1.39, inside a full suite run).
//
// The handshake peak per 100 ms is logged, not compared run against
// run: the immediate storm is capped by how many handshakes the machine
// can push through Caddy in 100 ms, which on a 2-core machine is close
// to the jittered peak (98–129 against 70–115 on one machine, 200–211
// against 95–97 on another), and Caddy does not always split the 400
// clients 200/200. The reproduce rule judges the peak on the median of 3
// runs, as the claim is published.
func TestWSStorm(t *testing.T) {
	perStream := map[string]float64{}
	for _, policy := range []string{"immediate", "full-jitter"} {
		run := wsRun(t, "ws-storm", 400, "target.runtime=go", "load.ws.policy.kind="+policy, "load.ws.policy.double_schedule=false")
		w := websockets.Of(&run.Metrics)
		if w.WSPeakHandshakes == nil {
			t.Fatalf("%s: no handshake peak measured", policy)
		}
		if w.WSRefusedCapacity == nil || w.WSClose1001 < 1 {
			t.Fatalf("%s: refused for capacity %v, closes 1001 %d: want the retired streams and the refusals that followed measured",
				policy, fmtIntP(w.WSRefusedCapacity), w.WSClose1001)
		}
		perStream[policy] = float64(*w.WSRefusedCapacity) / float64(w.WSClose1001)
		t.Logf("%s: %d streams retired, refused for capacity %d (%.2f per stream), %v attempts per client, peak %d handshakes/100 ms",
			policy, w.WSClose1001, *w.WSRefusedCapacity, perStream[policy], fmtP(w.WSAttemptsPerClientMean), *w.WSPeakHandshakes)
	}
	if perStream["immediate"] <= perStream["full-jitter"] {
		t.Errorf("refused for capacity per retired stream: immediate %.2f, full jitter %.2f; want the storm to cost the admission more than the jittered retries",
			perStream["immediate"], perStream["full-jitter"])
	}
}

// fmtIntP formats an optional count for a message ("NEVER" when nil).
func fmtIntP(p *int) any {
	if p == nil {
		return "NEVER"
	}
	return *p
}
