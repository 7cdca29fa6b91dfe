package websockets

import (
	"github.com/goccy/go-yaml"

	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce"
)

// The WebSocket rules (W1–W6), one per claim, written as reproduce's P
// rules are (reproduce.Judge): cells first, checks only when every input
// was present.

func ruleW1(res *report.Result) reproduce.Verdict {
	const refuse, accept = "UPGRADES_WHILE_DRAINING=refuse", "UPGRADES_WHILE_DRAINING=accept"
	j := reproduce.NewJudge(res)
	refused := j.Vals(refuse, "ws_upgrades_refused_draining")
	acceptedR := j.Vals(refuse, "ws_upgrades_accepted_after_ready_false")
	j.Vals(accept, "ws_upgrades_refused_draining")
	acceptedA := j.Vals(accept, "ws_upgrades_accepted_after_ready_false")
	if j.OK() {
		j.Check(reproduce.Every(refused, reproduce.AtLeast(1)), "refuse: no upgrade refused as draining in %s runs", reproduce.Count(refused, reproduce.Not(reproduce.AtLeast(1))))
		j.Check(reproduce.Every(acceptedR, reproduce.Equals(0)), "refuse: upgrades accepted after readiness failed in %s runs", reproduce.Count(acceptedR, reproduce.Not(reproduce.Equals(0))))
		j.Check(reproduce.Every(acceptedA, reproduce.AtLeast(1)), "accept: no upgrade accepted after readiness failed in %s runs (the race did not show)",
			reproduce.Count(acceptedA, reproduce.Not(reproduce.AtLeast(1))))
	}
	return j.Verdict()
}

// w2GoExitBeforeMs is how soon after docker stop a Go close-mode target
// must exit by itself: before the scenario's 6 s grace period, with room.
const w2GoExitBeforeMs = 5000

func ruleW2(res *report.Result) reproduce.Verdict {
	j := reproduce.NewJudge(res)
	c1001 := j.Vals("mode=close", "ws_close_1001")
	c1006 := j.Vals("mode=close", "ws_close_1006")
	p50 := j.Vals("mode=close", "ws_close_after_signal_p50_ms")
	code := j.Vals("mode=close", "exit_code")
	exit := j.Vals("mode=close", "exit_after_ms")
	if !j.OK() {
		return j.Verdict()
	}
	j.Check(reproduce.Every(c1001, reproduce.Equals(0)), "mode=close: clients got a 1001 in %s runs (close mode retired the streams)", reproduce.Count(c1001, reproduce.Not(reproduce.Equals(0))))
	if reproduce.ResultRuntime(res) == "go" {
		j.Check(reproduce.Every(code, reproduce.Equals(0)), "mode=close: exit code not 0 in %s runs", reproduce.Count(code, reproduce.Not(reproduce.Equals(0))))
		j.Check(reproduce.Every(exit, reproduce.Below(w2GoExitBeforeMs)), "mode=close: did not exit by itself within %s in %s runs",
			reproduce.MsRange(0, w2GoExitBeforeMs), reproduce.Count(exit, reproduce.NotBelow(w2GoExitBeforeMs)))
		j.Check(reproduce.Every(c1006, reproduce.AtLeast(1)), "mode=close: no 1006 close in %s runs", reproduce.Count(c1006, reproduce.Not(reproduce.AtLeast(1))))
		return j.Verdict()
	}
	j.Check(reproduce.Every(code, reproduce.Equals(137)), "mode=close: not killed at the grace period (exit code not 137) in %s runs", reproduce.Count(code, reproduce.Not(reproduce.Equals(137))))
	open := 0
	for i := range p50 {
		if i < len(exit) && !p50[i].Null && !exit[i].Null && p50[i].V >= exit[i].V-1000 {
			open++
		}
	}
	j.Check(open == len(p50), "mode=close: the median close came > 1 s before the kill (or is missing) in %d/%d runs", len(p50)-open, len(p50))
	return j.Verdict()
}

// w3SpreadSlackMs is how far past CLOSE_SPREAD_MS the 95th percentile close
// may land: handshake, scheduling and the raw peers' deadline closes.
const w3SpreadSlackMs = 500

func ruleW3(res *report.Result) reproduce.Verdict {
	j := reproduce.NewJudge(res)
	clients := j.Vals("mode=full", "ws_clients")
	c1001 := j.Vals("mode=full", "ws_close_1001")
	c1006 := j.Vals("mode=full", "ws_close_1006")
	other := j.Vals("mode=full", "ws_close_other")
	p50 := j.Vals("mode=full", "ws_close_after_signal_p50_ms")
	p95 := j.Vals("mode=full", "ws_close_after_signal_p95_ms")
	spread := j.Vals("mode=full", "ws_close_spread_ms")
	term := j.Vals("mode=full", "ws_terminated")
	code := j.Vals("mode=full", "exit_code")
	raw := 0
	if j.OK() {
		raw = rawPeers(res.ScenarioYAML)
		if raw == 0 {
			j.Missing("the %s scenario has no raw peer (load.ws.raw_peers): the deadline half cannot be judged", res.Scenario)
		}
	}
	if !j.OK() {
		return j.Verdict()
	}
	all, spreadOK, median := 0, 0, 0
	for i := range c1001 {
		if !c1001[i].Null && !clients[i].Null && c1001[i].V >= clients[i].V {
			all++
		}
		if s := spread[i]; !s.Null && s.V > 0 {
			if !p95[i].Null && p95[i].V <= s.V+w3SpreadSlackMs {
				spreadOK++
			}
			if !p50[i].Null && p50[i].V >= 0.2*s.V && p50[i].V <= 0.8*s.V {
				median++
			}
		}
	}
	n := len(c1001)
	j.Check(all == n, "mode=full: fewer 1001 closes than clients in %d/%d runs", n-all, n)
	j.Check(reproduce.Every(c1006, reproduce.Equals(0)), "mode=full: 1006 closes in %s runs", reproduce.Count(c1006, reproduce.Not(reproduce.Equals(0))))
	j.Check(reproduce.Every(other, reproduce.Equals(0)), "mode=full: closes with another code in %s runs", reproduce.Count(other, reproduce.Not(reproduce.Equals(0))))
	j.Check(spreadOK == n, "mode=full: p95 close time past CLOSE_SPREAD_MS + %d ms (or no spread) in %d/%d runs", w3SpreadSlackMs, n-spreadOK, n)
	j.Check(median == n, "mode=full: median close time outside 20–80%% of CLOSE_SPREAD_MS (a spike, or no spread) in %d/%d runs", n-median, n)
	j.Check(reproduce.Every(term, reproduce.AtLeast(float64(raw))), "mode=full: fewer than %d peers (the raw peers) terminated at the deadline in %s runs",
		raw, reproduce.Count(term, reproduce.Not(reproduce.AtLeast(float64(raw)))))
	j.Check(reproduce.Every(code, reproduce.Equals(0)), "mode=full: exit code not 0 in %s runs", reproduce.Count(code, reproduce.Not(reproduce.Equals(0))))
	return j.Verdict()
}

// rawPeers returns load.ws.raw_peers of a scenario file as run, 0 when
// absent or unreadable.
func rawPeers(scenarioYAML string) int {
	var sc struct {
		Load struct {
			WS struct {
				RawPeers int `yaml:"raw_peers"`
			} `yaml:"ws"`
		} `yaml:"load"`
	}
	if yaml.Unmarshal([]byte(scenarioYAML), &sc) != nil {
		return 0
	}
	return sc.Load.WS.RawPeers
}

var wsPolicies = []string{"kind=immediate", "kind=full-jitter"}

func ruleW4(res *report.Result) reproduce.Verdict {
	j := reproduce.NewJudge(res)
	peak := map[string][]report.Value{}
	single := map[string][]report.Value{}
	double := map[string][]report.Value{}
	for _, p := range wsPolicies {
		peak[p] = j.Vals(p+",double_schedule=false", "ws_peak_handshakes_per_100ms")
		j.Vals(p+",double_schedule=false", "ws_upgrades_per_s")
		j.Vals(p+",double_schedule=false", "ws_upgrades_refused_capacity")
		single[p] = j.Vals(p+",double_schedule=false", "ws_attempts_per_client_mean")
		double[p] = j.Vals(p+",double_schedule=true", "ws_attempts_per_client_mean")
	}
	if j.OK() {
		imm, fj := reproduce.Median(peak["kind=immediate"]), reproduce.Median(peak["kind=full-jitter"])
		j.Check(imm > fj && fj >= 0, "double_schedule=false: median peak handshakes per 100 ms not higher with immediate (%s) than with full-jitter (%s)",
			report.FormatNumber(report.KindCount, imm), report.FormatNumber(report.KindCount, fj))
		for _, p := range wsPolicies {
			s, d := medianF(single[p]), medianF(double[p])
			j.Check(d > s && s >= 0, "%s: median attempts per client not higher with double_schedule=true (%s) than false (%s)",
				p, report.FormatNumber(report.KindRatio, d), report.FormatNumber(report.KindRatio, s))
		}
	}
	return j.Verdict()
}

// medianF is median for a fractional metric (ws_attempts_per_client_mean),
// which report's count spread would not keep.
func medianF(xs []report.Value) float64 {
	d := report.MetricDef{Name: "x", Kind: report.KindRatio}
	s := report.SpreadOf(d, xs)
	if s.Median == nil {
		return -1
	}
	return *s.Median
}

func ruleW5(res *report.Result) reproduce.Verdict {
	const replay, none = "EVENTS_REPLAY=1000", "EVENTS_REPLAY=0"
	j := reproduce.NewJudge(res)
	unknownR := j.Vals(replay, "ws_events_unknown")
	dup := j.Vals(replay, "ws_events_dup_rejected")
	j.Vals(replay, "ws_events_replayed")
	j.Vals(replay, "ws_events_dup_accepted")
	j.Vals(replay, "ws_events_delivered")
	unknownN := j.Vals(none, "ws_events_unknown")
	j.Vals(none, "ws_events_delivered")
	if j.OK() {
		j.Check(reproduce.Every(unknownR, reproduce.Equals(0)), "%s: unknown events (replay missed some) in %s runs", replay, reproduce.Count(unknownR, reproduce.Not(reproduce.Equals(0))))
		j.Check(reproduce.Every(dup, reproduce.AtLeast(1)), "%s: no duplicate rejected in %s runs", replay, reproduce.Count(dup, reproduce.Not(reproduce.AtLeast(1))))
		j.Check(reproduce.Every(unknownN, reproduce.AtLeast(1)), "%s: no unknown event reported (a gap reported as zero loss?) in %s runs", none, reproduce.Count(unknownN, reproduce.Not(reproduce.AtLeast(1))))
	}
	return j.Verdict()
}

func ruleW6(res *report.Result) reproduce.Verdict {
	j := reproduce.NewJudge(res)
	fits5 := j.Vals("timeout=5s", "ws_budget_fits")
	budget := j.Vals("timeout=5s", "ws_budget_ms")
	code5 := j.Vals("timeout=5s", "exit_code")
	exit5 := j.Vals("timeout=5s", "exit_after_ms")
	fits10 := j.Vals("timeout=10s", "ws_budget_fits")
	code10 := j.Vals("timeout=10s", "exit_code")
	exit10 := j.Vals("timeout=10s", "exit_after_ms")
	if !j.OK() {
		return j.Verdict()
	}
	j.Check(reproduce.Every(fits5, reproduce.IsFalse), "timeout=5s: budget fits (or not recorded) in %s runs", reproduce.Count(fits5, reproduce.Not(reproduce.IsFalse)))
	j.Check(reproduce.Every(code5, reproduce.Equals(137)), "timeout=5s: not killed (exit code not 137) in %s runs", reproduce.Count(code5, reproduce.Not(reproduce.Equals(137))))
	early := 0
	for i := range exit5 {
		if i < len(budget) && !exit5[i].Null && !budget[i].Null && exit5[i].V < budget[i].V {
			early++
		}
	}
	j.Check(early == len(exit5), "timeout=5s: the process did not end before its budget in %d/%d runs", len(exit5)-early, len(exit5))
	j.Check(reproduce.Every(fits10, reproduce.IsTrue), "timeout=10s: budget does not fit (or not recorded) in %s runs", reproduce.Count(fits10, reproduce.Not(reproduce.IsTrue)))
	j.Check(reproduce.Every(code10, reproduce.Equals(0)), "timeout=10s: exit code not 0 in %s runs", reproduce.Count(code10, reproduce.Not(reproduce.Equals(0))))
	j.Check(reproduce.Every(exit10, reproduce.Below(10000)), "timeout=10s: did not exit before the 10 s timeout in %s runs", reproduce.Count(exit10, reproduce.NotBelow(10000)))
	return j.Verdict()
}
