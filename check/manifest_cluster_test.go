package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities"
	"github.com/shutdownlab/shutdownlab/capabilities/rollout"
	"github.com/shutdownlab/shutdownlab/capabilities/rollout/rolloutmetrics"
	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// TestClusterVerdict: the verdict of a rollout measured on a cluster says
// safe or not from the failures during the rollout, names failures before
// it apart, advises a readinessProbe (and no pre-stop search) when the pod
// has none, and names the cluster even when no run was valid.
func TestClusterVerdict(t *testing.T) {
	withProbe := manifestOpts{pod: kube.Pod{Kind: "Deployment", Name: "web", Readiness: &kube.Probe{Path: "/readyz"}}, image: "img", readyPath: "/readyz", runs: 1}
	noProbe := withProbe
	noProbe.pod.Readiness = nil
	base := func(c clusterFacts) clusterFacts {
		c.context, c.server, c.graceS = "kit", "https://10.88.0.1:6443", 30
		if c.byClass == nil {
			c.byClass = map[string]int{}
		}
		return c
	}
	for _, tt := range []struct {
		name string
		o    manifestOpts
		c    clusterFacts
		code int
		want []string
		not  []string
	}{
		{"safe", withProbe, base(clusterFacts{runs: 1, exitMs: []float64{3200}, codes: []int{0}}), VerdictClean,
			[]string{"measured on cluster context kit (https://10.88.0.1:6443)", "rollout: SAFE", "needs terminationGracePeriodSeconds 6 (the slowest exit + 2 s), the manifest gives 30"},
			[]string{"new pods:", "not about the rollout"}},
		{"failures before the rollout are named apart and do not make it unsafe", withProbe, base(clusterFacts{runs: 1, before: 9, byClass: map[string]int{"refused": 9}}), VerdictClean,
			[]string{"rollout: SAFE", "not about the rollout: 9 requests failed before it was sent"}, nil},
		{"unsafe without a readiness probe: the probe, not a search", noProbe, base(clusterFacts{runs: 1, failed: 298, unsafe: 298, before: 9, byClass: map[string]int{"refused": 307}}), VerdictDefect,
			[]string{"rollout: UNSAFE: up to 298 requests failed while the pods were replaced (by class, over the whole run: refused 307)",
				"not about the rollout: 9 requests failed before it was sent", "new pods: give the container a readinessProbe", "such as GET /readyz", "no pre-stop search was run"},
			[]string{"to make it safe"}},
		{"unsafe with a probe: the search's answer", withProbe, base(clusterFacts{runs: 1, failed: 12, unsafe: 12, byClass: map[string]int{"eof": 12}, search: map[int]int{1: 4, 2: 0}}), VerdictDefect,
			[]string{"rollout: UNSAFE: up to 12", "preStop sleep 2s measured safe on this cluster"}, []string{"new pods:"}},
		{"only the keep-alive race: safe for clients that retry, no search", withProbe, base(clusterFacts{runs: 1, failed: 10, races: 10, byClass: map[string]int{"eof": 1, "reset": 9}}), VerdictClean,
			[]string{"rollout: SAFE for clients that retry: no work was dropped while every pod was replaced, but up to 10 requests hit the keep-alive race", "idle_close_race"},
			[]string{"UNSAFE", "to make it safe"}},
		{"the race beside other failures stays unsafe", withProbe, base(clusterFacts{runs: 1, failed: 13, races: 11, unsafe: 2, byClass: map[string]int{"eof": 8, "reset": 3, "refused": 2}}), VerdictDefect,
			[]string{"rollout: UNSAFE: up to 13 requests failed", "; up to 11 of them the keep-alive race"}, nil},
		{"a search sleep no longer than the manifest's own is no advice", func() manifestOpts {
			o := withProbe
			o.pod.PreStop = &kube.Hook{Kind: kube.HookSleep, Sleep: 3 * time.Second}
			return o
		}(), base(clusterFacts{runs: 1, failed: 10, unsafe: 10, search: map[int]int{1: 6, 2: 0, 3: 0}}), VerdictDefect,
			[]string{"to make it safe: not found: preStop sleep 2s measured 0 failed, but the manifest's own 3s did not: what fails varies from run to run"},
			[]string{"measured safe on this cluster"}},
		{"SIGKILL is unsafe", withProbe, base(clusterFacts{runs: 1, killed: 2, exitMs: []float64{4004, 4214}, codes: []int{0, 137}}), VerdictDefect,
			[]string{"SIGKILLed: 2", "exit codes 0, 137"}, nil},
		{"no valid run still names the cluster", withProbe, base(clusterFacts{}), VerdictUnclear,
			[]string{"measured on cluster context kit (https://10.88.0.1:6443)", "could not tell: no valid run"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text, code := clusterVerdict(tt.o, tt.c)
			if code != tt.code {
				t.Errorf("code %d, want %d\n%s", code, tt.code, text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("verdict lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(text, w) {
					t.Errorf("verdict has %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestRolloutRaces: of a run's records, only the failures at or after the
// rollout was sent with the keep-alive race's signature count; an
// unreadable run counts none and says so.
func TestRolloutRaces(t *testing.T) {
	dir := t.TempDir()
	v := &report.Variant{Slug: "default"}
	r := &report.Run{Name: "run-001"}
	rd := filepath.Join(dir, "default", "run-001")
	if err := os.MkdirAll(rd, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"type":"req","id":"a","reused":true,"start_ns":900,"end_ns":901,"class":"eof"}`,                     // before the rollout
		`{"type":"req","id":"b","reused":true,"start_ns":1000,"written_ns":1001,"end_ns":1002,"class":"eof"}`, // the race
		`{"type":"req","id":"c","reused":true,"start_ns":1100,"end_ns":1102,"class":"reset"}`,                 // the race
		`{"type":"req","id":"d","reused":true,"start_ns":1200,"first_byte_ns":1201,"end_ns":1202,"class":"reset"}`,
		`{"type":"req","id":"e","reused":false,"start_ns":1300,"end_ns":1301,"class":"refused"}`,
		`{"type":"req","id":"f","reused":true,"start_ns":1400,"end_ns":1401,"class":"ok","status":200}`,
	}
	if err := os.WriteFile(filepath.Join(rd, "records.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, ok := rolloutRaces(dir, v, r, 1000); n != 2 || !ok {
		t.Errorf("rolloutRaces = %d, %v; want 2, true", n, ok)
	}
	if n, ok := rolloutRaces(t.TempDir(), v, r, 1000); n != 0 || ok {
		t.Errorf("rolloutRaces of a missing run = %d, %v; want 0, false", n, ok)
	}
}

// TestAddRacesKilled: the same records count as the keep-alive race in a
// run that killed no pod, and as none in a run that SIGKILLed one (a
// request in flight at the kill ends the same way and is dropped work).
func TestAddRacesKilled(t *testing.T) {
	capabilities.Install() // the run carries the rollout part, as after Main
	dir := t.TempDir()
	rd := filepath.Join(dir, "default", "run-001")
	if err := os.MkdirAll(rd, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := `{"type":"req","id":"b","reused":true,"start_ns":1000,"written_ns":1001,"end_ns":1002,"class":"eof"}
{"type":"req","id":"c","reused":true,"start_ns":1100,"end_ns":1102,"class":"reset"}
`
	if err := os.WriteFile(filepath.Join(rd, "records.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	v := &report.Variant{Slug: "default"}
	for _, tt := range []struct {
		killed, races, unsafe int
	}{{0, 2, 0}, {1, 0, 2}} {
		r := &report.Run{Name: "run-001"}
		r.Meta.SetPart(&record.Rollout{SentNs: 1000})
		r.Metrics.SetPart(rollout.Capability.Name, &rolloutmetrics.Metrics{RolloutFailed: 2, OldTasksKilled: tt.killed})
		var c clusterFacts
		c.addRaces(dir, v, r)
		if c.races != tt.races || c.unsafe != tt.unsafe {
			t.Errorf("killed %d: races %d, unsafe %d; want %d, %d", tt.killed, c.races, c.unsafe, tt.races, tt.unsafe)
		}
	}
}

// TestClusterFactsOf: a run's facts are read from the rollout metrics
// and the core metrics as report computes them: the most failed in the
// rollout, those before it, SIGKILLs, a rollout that did not converge,
// the failed classes; a run without rollout metrics did not converge.
func TestClusterFactsOf(t *testing.T) {
	capabilities.Install()
	run := func(rm *rolloutmetrics.Metrics, failed int) report.Run {
		m := report.Metrics{Failed: failed, ByClass: map[string]int{"ok": 90, "reset": failed}}
		m.SetPart(rollout.Need, rm)
		return report.Run{Metrics: m, Valid: true}
	}
	res := &report.Result{Variants: []report.Variant{{Runs: []report.Run{
		run(&rolloutmetrics.Metrics{RolloutFailed: 4, RolloutConverged: true, OldTasksKilled: 1}, 7),
		run(nil, 0),
	}}}}
	c := clusterFactsOf(res, "")
	if c.runs != 2 || c.failed != 4 || c.before != 3 || c.killed != 1 || c.incomplete != 1 || c.unsafe != 4 || c.byClass["reset"] != 7 || c.byClass["ok"] != 0 {
		t.Errorf("facts %+v", c)
	}
}

// TestRequestsWord: one request is singular in a verdict.
func TestRequestsWord(t *testing.T) {
	for n, want := range map[int]string{0: "0 requests", 1: "1 request", 7: "7 requests"} {
		if got := requests(n); got != want {
			t.Errorf("requests(%d) = %q, want %q", n, got, want)
		}
	}
}
