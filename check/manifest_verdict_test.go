package check

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities/pod/podmetrics"
)

func pr(failed, propagation, drain, afterKill int, killed bool, exitMs float64) podRun {
	r := podRun{Metrics: podmetrics.Metrics{PodFailed: failed, PodFailedPropagation: propagation, PodFailedDrain: drain, PodFailedAfterKill: afterKill, PodKilled: killed}}
	if exitMs > 0 {
		r.PodDeletionToExitMs = &exitMs
	}
	return r
}

// withHookMax sets a run's preStop hook time and slowest request.
func withHookMax(r podRun, hookMs, maxMs float64) podRun {
	r.PodHookMs, r.Core.MaxMs = &hookMs, &maxMs
	return r
}

func facts(stated time.Duration, ds ...delayRuns) manifestFacts {
	return manifestFacts{Termination: "preStop sleep 3s, then SIGTERM", StopSignal: "SIGTERM", Grace: 30 * time.Second,
		Sleep: 3 * time.Second, Stated: stated, Delays: ds}
}

func at(d time.Duration, runs ...podRun) delayRuns { return delayRuns{Delay: d, Runs: runs} }

// TestManifestVerdict: safe or not at the stated delay decides the exit
// code; each unsafe delay names its rule; the grace period is the slowest
// exit + 2 s; a SIGKILL is never safe.
func TestManifestVerdict(t *testing.T) {
	s := time.Second
	clean := pr(0, 0, 0, 0, false, 3400)
	for _, tt := range []struct {
		name string
		f    manifestFacts
		code int
		want []string
	}{
		{"safe at the stated delay, unsafe beyond", facts(2*s, at(0, clean), at(2*s, clean), at(5*s, pr(71, 71, 0, 0, false, 3500))),
			VerdictClean, []string{"propagation 2s: safe: 0 failed", "at your propagation delay, 2s: SAFE", "measured safe at: 0s, 2s; unsafe at: 5s",
				"propagation 5s: UNSAFE: 71 failed: 71 sent while the endpoint was still registered", "its preStop sleep 3s ended first",
				"needs terminationGracePeriodSeconds 6 (the slowest exit + 2 s), the manifest gives 30"}},
		{"unsafe at the stated delay", facts(2*s, at(2*s, clean, pr(5, 5, 0, 0, false, 3500))),
			VerdictDefect, []string{"UNSAFE: 5 failed (worst of 2 runs)", "at your propagation delay, 2s: UNSAFE"}},
		{"drops after the endpoint was gone", facts(s, at(s, pr(4, 0, 4, 0, false, 3100))),
			VerdictDefect, []string{"4 in flight at SIGTERM (work the app held and dropped when told to stop)"}},
		{"SIGKILL without a failed request is not safe", facts(s, at(s, pr(0, 0, 0, 0, true, 30100))),
			VerdictDefect, []string{"UNSAFE: no request failed, but SIGKILLed: terminationGracePeriodSeconds 30 ended before it exited", "grace period: SIGKILLed in 1 run:"}},
		{"a new pod without a readiness probe took traffic", func() manifestFacts {
			f := facts(2*s, at(2*s, podRun{Metrics: podmetrics.Metrics{PodFailed: 40, PodFailedNewPod: ip(40)}}))
			f.Rollout, f.ReadyPath, f.Load = "a new pod replaces it", "/readyz", 8*s
			return f
		}(), VerdictDefect, []string{"rollout: a new pod replaces it", "UNSAFE: 40 failed: 40 sent by the proxy to the new pod before its app served them (without a readinessProbe the pod is ready",
			"new pods: give the container a readinessProbe", "not measured in this run; to measure it: --set action.terminate.new_pod.readiness.path=/readyz --set action.terminate.new_pod.readiness.period=1s --set load.duration=20s"}},
		{"a readiness probe that passes too early", func() manifestFacts {
			f := facts(2*s, at(2*s, podRun{Metrics: podmetrics.Metrics{PodFailed: 3, PodFailedNewPod: ip(3)}}))
			f.Readiness = "GET /healthz on the container's port every 1s after 0s, 1 in a row"
			return f
		}(), VerdictDefect, []string{"its readinessProbe, GET /healthz", "new pods: the readinessProbe GET /healthz on the container's port every 1s after 0s, 1 in a row passed before the app served"}},
		{"safe here, but a kept-alive request outlasts the grace period on a cluster", func() manifestFacts {
			r := withHookMax(pr(0, 0, 0, 0, false, 3900), 2000, 3010)
			f := facts(s, at(0, withHookMax(pr(0, 0, 0, 0, false, 3000), 2000, 3005)), at(s, r))
			f.Grace, f.Sleep = 4*s, 2*s
			return f
		}(), VerdictDefect, []string{"at your propagation delay, 1s: UNSAFE on a cluster: no request failed here, but terminationGracePeriodSeconds 4 ends before the drain can on a cluster",
			"a request can start on it just before SIGTERM: the hook and the slowest request, 5.0 s",
			"exited at most 3.9 s after its deletion here, and on a cluster can take until 5.0 s", "it needs terminationGracePeriodSeconds 8 (the later + 2 s), the manifest gives 4"}},
		{"the keep-alive bound inside the grace period keeps it safe", facts(2*s, at(2*s, withHookMax(pr(0, 0, 0, 0, false, 3100), 3000, 25))),
			VerdictClean, []string{"at your propagation delay, 2s: SAFE", "needs terminationGracePeriodSeconds 6 (the slowest exit + 2 s), the manifest gives 30"}},
		{"no valid run at the stated delay", facts(2*s, at(0, clean), at(2*s)),
			VerdictUnclear, []string{"propagation 2s: no valid run", "could not tell"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text, code := manifestVerdict(tt.f)
			if code != tt.code {
				t.Errorf("code %d, want %d\n%s", code, tt.code, text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("verdict lacks %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestSearchText: the smallest candidate sleep that measured safe is
// recommended, with the smaller ones that were not enough.
func TestSearchText(t *testing.T) {
	s := time.Second
	f := facts(2 * s)
	f.Search = []delayRuns{{Delay: 2 * s, Sleep: 2 * s, Runs: []podRun{pr(3, 3, 0, 0, false, 2500)}},
		{Delay: 2 * s, Sleep: 3 * s, Runs: []podRun{pr(0, 0, 0, 0, false, 3500)}}, {Delay: 2 * s, Sleep: 4 * s, Runs: []podRun{pr(0, 0, 0, 0, false, 4500)}}}
	got := searchText(f)
	for _, w := range []string{"preStop sleep 3s measured safe", "sleep.seconds: 3", "not enough: 2s: 3 failed"} {
		if !strings.Contains(got, w) {
			t.Errorf("search text lacks %q: %s", w, got)
		}
	}
	f.Search = f.Search[:1]
	if got := searchText(f); !strings.Contains(got, "no preStop sleep tried measured safe") {
		t.Errorf("no safe candidate: %s", got)
	}
}

// TestSearchSleeps: the pre-stop search runs only when the stated delay
// failed by the propagation, from the delay's whole seconds up and above
// the manifest's own sleep.
func TestSearchSleeps(t *testing.T) {
	s := time.Second
	prop := pr(9, 9, 0, 0, false, 2000)
	for _, tt := range []struct {
		name  string
		f     manifestFacts
		sleep time.Duration
		want  []time.Duration
	}{
		{"safe: none", facts(2*s, at(2*s, pr(0, 0, 0, 0, false, 2000))), -1, nil},
		{"drain failures: none", facts(2*s, at(2*s, pr(4, 0, 4, 0, false, 2000))), -1, nil},
		{"no hook, 1.5 s", facts(1500*time.Millisecond, at(1500*time.Millisecond, prop)), -1, []time.Duration{2 * s, 3 * s, 4 * s}},
		{"no hook, 0 s", facts(0, at(0, prop)), -1, []time.Duration{s, 2 * s, 3 * s}},
		{"a 3 s sleep, 2 s", facts(2*s, at(2*s, prop)), 3 * s, []time.Duration{4 * s, 5 * s, 6 * s}},
	} {
		tt.f.Sleep = tt.sleep
		if got := searchSleeps(tt.f); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
