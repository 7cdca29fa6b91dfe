package check

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/kube"
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
		{"unsafe without a readiness probe: the probe, not a search", noProbe, base(clusterFacts{runs: 1, failed: 298, before: 9, byClass: map[string]int{"refused": 307}}), VerdictDefect,
			[]string{"rollout: UNSAFE: up to 298 requests failed while the pods were replaced (by class, over the whole run: refused 307)",
				"not about the rollout: 9 requests failed before it was sent", "new pods: give the container a readinessProbe", "such as GET /readyz", "no pre-stop search was run"},
			[]string{"to make it safe"}},
		{"unsafe with a probe: the search's answer", withProbe, base(clusterFacts{runs: 1, failed: 12, byClass: map[string]int{"eof": 12}, search: map[int]int{1: 4, 2: 0}}), VerdictDefect,
			[]string{"rollout: UNSAFE: up to 12", "preStop sleep 2s measured safe on this cluster"}, []string{"new pods:"}},
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
