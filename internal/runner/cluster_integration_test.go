package runner_test

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/cluster"
	"github.com/shutdownlab/shutdownlab/capabilities/cluster/clustermetrics"
	"github.com/shutdownlab/shutdownlab/capabilities/resources"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// clusterRun runs one variant of a cluster scenario on the Node image and
// returns its run, which must be valid and have cluster metrics.
func clusterRun(t *testing.T, name string, sets ...string) (report.Run, *clustermetrics.Metrics) {
	t.Helper()
	r := newRunner(t, append([]string{"runs=1"}, sets...)...)
	run := runOne(t, r, name)
	c := cluster.Of(&run.Metrics)
	if c == nil {
		t.Fatalf("no cluster metrics: the replica logged no fork (events %+v)", run.Meta.Replicas[0].Events)
	}
	for _, e := range run.Meta.Replicas[0].Events {
		t.Logf("event %s worker=%v pid=%d code=%v signal=%s ms=%v msg=%q", e.Event, ip(e.Worker), e.PID, ip(e.Code), e.Signal, fmtP(e.Ms), e.Msg)
	}
	return run, c
}

func ip(p *int) any { return fmtIP(p) }

// forksBefore counts the fork events before the first signal event.
func forksBefore(evs []record.Event) (n int, refork []string) {
	for _, e := range evs {
		if e.Event == record.EventSignal {
			break
		}
		if e.Event == record.EventFork {
			n++
			if e.Msg != "start" {
				refork = append(refork, e.Msg)
			}
		}
	}
	return n, refork
}

// TestClusterGatedCrashThenStop is C2 on the image, as the article's
// black-box test does it: 2 workers under load, a crash step at 1 s
// (docker kill -s SIGUSR2: the primary SIGKILLs worker 1), docker stop
// -t 10 at 3 s. The crash is re-forked exactly once, within milliseconds;
// the SIGTERM forks nothing and the primary ends itself with exit 0.
func TestClusterGatedCrashThenStop(t *testing.T) {
	run, c := clusterRun(t, "cluster-gated")
	a := run.Meta.Action
	if len(a.Before) != 1 || a.Before[0].Kind != record.StepCrash || a.Before[0].SentNs == 0 || a.Before[0].SentNs >= a.SentNs {
		t.Fatalf("steps %+v: want one crash, sent before the stop (%d)", a.Before, a.SentNs)
	}
	if ks := a.Before[0].Kills; len(ks) != 1 || ks[0].Signal != 12 {
		t.Errorf("crash step's kill events %+v: want one SIGUSR2 (12)", ks)
	}
	if len(a.Kills) == 0 || a.Kills[0].Signal != 15 {
		t.Errorf("the stop's kill events %+v: want SIGTERM (15) first", a.Kills)
	}
	forks, reforks := forksBefore(run.Meta.Replicas[0].Events)
	if forks != 3 || len(reforks) != 1 || reforks[0] != "replaces worker=1" {
		t.Errorf("forks before the signal %d (re-forks %q): want the 2 workers and exactly one re-fork of worker 1", forks, reforks)
	}
	if c.Crashes != 1 || c.WorkerExitsSIGKILL != 1 || c.ResurrectionMs == nil || *c.ResurrectionMs >= 1000 {
		t.Errorf("crashes %d, SIGKILLed workers %d, resurrection_ms %v: want one crash re-forked within milliseconds",
			c.Crashes, c.WorkerExitsSIGKILL, fmtP(c.ResurrectionMs))
	} else {
		t.Logf("resurrection_ms %.1f", *c.ResurrectionMs)
	}
	if c.ForksAfterSignal == nil || *c.ForksAfterSignal != 0 {
		t.Errorf("forks_after_signal %v: want 0 (gated)", ip(c.ForksAfterSignal))
	}
	m := run.Metrics
	if m.ExitCode == nil || *m.ExitCode != 0 || c.EndedBySelf == nil || !*c.EndedBySelf || c.ForcedExit {
		t.Errorf("exit %v, ended_by_self %v, forced_exit %v: want exit 0 of its own", ip(m.ExitCode), c.EndedBySelf, c.ForcedExit)
	}
	if c.WorkerExitsCode0 != 2 {
		t.Errorf("workers that exited 0: %d, want the 2 of the pool at the signal", c.WorkerExitsCode0)
	}
	t.Logf("exit %v after %v ms; workers exited: %d (code 0: %d, SIGKILL: %d)", ip(m.ExitCode), fmtP(m.ExitAfterMs),
		c.WorkerExits, c.WorkerExitsCode0, c.WorkerExitsSIGKILL)
}

// TestClusterBlindStop is C1 on the image: a blind supervisor under load
// that ends 3 s after docker stop -t 8. The workers exit once the load is
// gone, the primary forks their replacements, and only the grace period's
// SIGKILL ends it: exit 137, about 8 s after the stop.
func TestClusterBlindStop(t *testing.T) {
	run, c := clusterRun(t, "cluster-blind", "load.duration=5s")
	if c.ForksAfterSignal == nil || *c.ForksAfterSignal == 0 {
		t.Errorf("forks_after_signal %v: want > 0 (blind)", ip(c.ForksAfterSignal))
	} else {
		t.Logf("forks_after_signal %d", *c.ForksAfterSignal)
	}
	m := run.Metrics
	if m.ExitCode == nil || *m.ExitCode != 137 || c.EndedByEngineKill == nil || !*c.EndedByEngineKill || *c.EndedBySelf {
		t.Errorf("exit %v, ended_by_engine_kill %v, ended_by_self %v: want 137 from the engine's SIGKILL", ip(m.ExitCode), c.EndedByEngineKill, c.EndedBySelf)
	}
	if e := m.ExitAfterMs; e == nil || *e < 8000 || *e >= 9000 {
		t.Errorf("exit_after_ms %v: want the 8 s grace period (8000..9000)", fmtP(e))
	} else {
		t.Logf("exit 137 after %.0f ms", *e)
	}
	var kills []int
	for _, k := range run.Meta.Action.Kills {
		kills = append(kills, k.Signal)
	}
	if len(kills) != 2 || kills[0] != 15 || kills[1] != 9 {
		t.Errorf("kill events %v: want SIGTERM then SIGKILL", kills)
	}
	if c.SeveredAtKill == nil {
		t.Error("severed_at_kill null after an engine SIGKILL")
	} else {
		t.Logf("severed_at_kill %d (the load ended before the kill)", *c.SeveredAtKill)
	}
}

// TestClusterBlindSeveredAtKill is C1's other half: the load runs through
// the grace period's SIGKILL, so the workers never get idle and the kill
// cuts the requests they hold.
func TestClusterBlindSeveredAtKill(t *testing.T) {
	run, c := clusterRun(t, "cluster-blind", "load.duration=14s")
	m := run.Metrics
	if m.ExitCode == nil || *m.ExitCode != 137 || c.EndedByEngineKill == nil || !*c.EndedByEngineKill {
		t.Errorf("exit %v, ended_by_engine_kill %v: want 137 from the engine's SIGKILL", ip(m.ExitCode), c.EndedByEngineKill)
	}
	if c.SeveredAtKill == nil || *c.SeveredAtKill == 0 {
		t.Errorf("severed_at_kill %v: want the requests in flight at the kill", ip(c.SeveredAtKill))
	} else {
		t.Logf("severed_at_kill %d, forks_after_signal %v", *c.SeveredAtKill, ip(c.ForksAfterSignal))
	}
}

// TestClusterTeardownForcedExit is C3 on the image: one client trickling
// its headers at 1 byte/s holds the worker's plain close; TEARDOWN_MS=4000
// makes the primary force the exit ~4 s after the signal, exit 1, cutting
// the trickling attempt.
func TestClusterTeardownForcedExit(t *testing.T) {
	run, c := clusterRun(t, "cluster-teardown", "target.env.TEARDOWN_MS=4000")
	m := run.Metrics
	if !c.ForcedExit || c.ForcedExitMs == nil || *c.ForcedExitMs < 4000 || *c.ForcedExitMs >= 5000 {
		t.Errorf("forced_exit %v at %v ms: want forced at TEARDOWN_MS=4000 (4000..5000)", c.ForcedExit, fmtP(c.ForcedExitMs))
	} else {
		t.Logf("forced_exit_ms %.0f", *c.ForcedExitMs)
	}
	if m.ExitCode == nil || *m.ExitCode != 1 || c.EndedBySelf == nil || !*c.EndedBySelf {
		t.Errorf("exit %v, ended_by_self %v: want exit 1 of its own", ip(m.ExitCode), c.EndedBySelf)
	}
	if c.SeveredAtKill == nil || *c.SeveredAtKill != 1 {
		t.Errorf("severed_at_kill %v: want the one trickling attempt", ip(c.SeveredAtKill))
	}
	if c.ForksAfterSignal == nil || *c.ForksAfterSignal != 0 {
		t.Errorf("forks_after_signal %v, want 0 (gated)", ip(c.ForksAfterSignal))
	}
}

// TestClusterTrickleHoldsClose is C3 without the timeout: nothing but the
// grace period's SIGKILL ends the wait (docker stop -t 8).
func TestClusterTrickleHoldsClose(t *testing.T) {
	run, c := clusterRun(t, "cluster-teardown", "target.env.TEARDOWN_MS=0")
	m := run.Metrics
	if m.ExitCode == nil || *m.ExitCode != 137 || c.EndedByEngineKill == nil || !*c.EndedByEngineKill || c.ForcedExit {
		t.Errorf("exit %v, ended_by_engine_kill %v, forced_exit %v: want 137 from the engine's SIGKILL", ip(m.ExitCode), c.EndedByEngineKill, c.ForcedExit)
	}
	if e := m.ExitAfterMs; e == nil || *e < 8000 || *e >= 9000 {
		t.Errorf("exit_after_ms %v: want the 8 s grace period (8000..9000)", fmtP(e))
	} else {
		t.Logf("exit 137 after %.0f ms", *e)
	}
}

// TestClusterProxyPipeLeak is C4 on the image, pipe against pipeline with
// a backend that holds each request longer than the run: with pipe every
// aborted client leaves its backend socket open (the fds grow, where the
// sampler can read them) and the clean shutdown needs the teardown
// timeout; pipeline leaks none and exits 0.
func TestClusterProxyPipeLeak(t *testing.T) {
	for _, impl := range []string{"pipe", "pipeline"} {
		t.Run(impl, func(t *testing.T) {
			run, c := clusterRun(t, "cluster-proxy", "target.env.PROXY_IMPL="+impl, "load.hostile.path=/proxy?ms=60000")
			m := run.Metrics
			aborted := m.ByClass[string(record.ClassAborted)]
			if aborted == 0 {
				t.Fatalf("no aborted request: by_class %v", m.ByClass)
			}
			wantCode, wantForced := 0, false
			if impl == "pipe" {
				wantCode, wantForced = 1, true
			}
			if m.ExitCode == nil || *m.ExitCode != wantCode || c.ForcedExit != wantForced {
				t.Errorf("exit %v, forced_exit %v after %d aborted requests: want exit %d, forced %v", ip(m.ExitCode), c.ForcedExit, aborted, wantCode, wantForced)
			}
			if r := resources.Of(&m); r != nil && r.FDGrowthPerAbort != nil {
				g := *r.FDGrowthPerAbort
				if impl == "pipe" && g < 0.5 || impl == "pipeline" && g > 0.2 {
					t.Errorf("fd_growth_per_abort %.2f: want about 1 with pipe, 0 with pipeline", g)
				}
				t.Logf("%s: %d aborted, fd_growth_per_abort %.2f, fds_at_signal %v, exit %v", impl, aborted, g, ip(r.FDsAtSignal), ip(m.ExitCode))
			} else {
				t.Logf("%s: %d aborted, fds not sampled here, exit %v", impl, aborted, ip(m.ExitCode))
			}
		})
	}
}
