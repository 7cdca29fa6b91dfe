package runner

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

func intp(n int) *int { return &n }

// TestKubeExitNs: the exit is bounded above by the watch's sight of it
// and by the end of finishedAt's whole second, whichever comes first.
func TestKubeExitNs(t *testing.T) {
	const s = int64(1e9)
	tests := []struct {
		name string
		p    record.KubePod
		want int64
	}{
		{"not ended", record.KubePod{}, 0},
		{"seen only", record.KubePod{TerminatedNs: 10*s + 400e6}, 10*s + 400e6},
		{"finishedAt only: the end of its second", record.KubePod{FinishedAtNs: 10 * s}, 11 * s},
		{"seen within finishedAt's second", record.KubePod{TerminatedNs: 10*s + 300e6, FinishedAtNs: 10 * s}, 10*s + 300e6},
		{"seen later (the kubelet's relist): finishedAt's second ends first", record.KubePod{TerminatedNs: 12 * s, FinishedAtNs: 10 * s}, 11 * s},
	}
	for _, tt := range tests {
		if got := kubeExitNs(tt.p); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestKubeTasks: pods of the template before the action are the old
// generation; the deletion the watch saw is the signal; exit 137 after
// the grace period is the kubelet's SIGKILL, at its schedule; Unhealthy
// events are counted per pod.
func TestKubeTasks(t *testing.T) {
	const s = int64(1e9)
	grace := 10
	obs := record.Kubernetes{
		Pods: []record.KubePod{
			{Name: "a", TemplateHash: "old1", IP: "10.88.0.5", RunningNs: 1 * s, ReadyNs: 2 * s, DeletionSeenNs: 20 * s, DeletionNs: 20 * s, GraceS: &grace,
				TerminatedNs: 30*s + 500e6, FinishedAtNs: 30 * s, ExitCode: intp(137)},
			{Name: "b", TemplateHash: "old1", DeletionSeenNs: 25 * s, TerminatedNs: 26 * s, FinishedAtNs: 25 * s, ExitCode: intp(0), GraceS: &grace},
			{Name: "c", TemplateHash: "new2", RunningNs: 19 * s, ReadyNs: 21 * s},
		},
		Events: []record.KubeEvent{{ObservedNs: 22 * s, Kind: "Pod", Name: "b", Reason: "Unhealthy"}, {ObservedNs: 23 * s, Kind: "Pod", Name: "b", Reason: "Unhealthy"}},
	}
	ts := kubeTasks(obs, "old1", 8080, nil)
	if len(ts) != 3 {
		t.Fatalf("%d tasks", len(ts))
	}
	a, b, c := ts[0], ts[1], ts[2]
	if a.Generation != record.GenerationOld || b.Generation != record.GenerationOld || c.Generation != record.GenerationNew {
		t.Errorf("generations %s %s %s", a.Generation, b.Generation, c.Generation)
	}
	if a.KillNs != 30*s || b.KillNs != 0 {
		t.Errorf("kill %d %d: want a killed at deletion + grace, b not", a.KillNs, b.KillNs)
	}
	if a.SignalNs != 20*s || a.FinishedNs != 30*s+500e6 || a.Upstream != "10.88.0.5:8080" || a.HealthyNs != 2*s {
		t.Errorf("a: %+v", a)
	}
	if b.Unhealthy != 2 || b.UnhealthyNs != 22*s || b.State != "complete" || a.State != "failed" || c.State != "running" {
		t.Errorf("b: %+v; states %s %s %s", b, a.State, b.State, c.State)
	}
}

// TestKubeReplicas: the replicas are the template's pods before the
// action, by name; the deleted one's exit and 137 at the kubelet's
// schedule mark the SIGKILL; the action points at it.
func TestKubeReplicas(t *testing.T) {
	const s = int64(1e9)
	obs := record.Kubernetes{Pods: []record.KubePod{
		{Name: "t-b", TemplateHash: "h", ReadyNs: s},
		{Name: "t-a", TemplateHash: "h", ReadyNs: s, DeletionSeenNs: 5 * s, TerminatedNs: 36 * s, FinishedAtNs: 35 * s, ExitCode: intp(137)},
		{Name: "t-new", TemplateHash: "g", ReadyNs: 6 * s},
	}}
	reps := kubeReplicas(obs, "h", map[string][]record.Event{"t-a": {{Event: "signal"}}}, "t-a")
	if len(reps) != 2 || reps[0].Name != "t-a" || reps[1].Name != "t-b" {
		t.Fatalf("replicas %+v", reps)
	}
	if !reps[0].Exited || *reps[0].ExitCode != 137 || reps[0].ExitedNs != 36*s || len(reps[0].Events) != 1 || reps[1].Exited {
		t.Errorf("replicas %+v", reps)
	}
	a := &record.Action{Kind: record.ActionTerminate, Replica: 0}
	a.SetPart(&record.Termination{DeletedNs: 5 * s, GraceS: 30, KillAtNs: 35 * s})
	markKilled(a, reps, "t-a")
	if a.Replica != 0 || a.Termination().KillSentNs != 35*s {
		t.Errorf("action %+v termination %+v", a, a.Termination())
	}
	a.Termination().KillSentNs = 0
	a.Termination().KillAtNs = 40 * s // exited 137 before the schedule: the app's own
	markKilled(a, reps, "t-a")
	if a.Termination().KillSentNs != 0 {
		t.Errorf("a 137 before the kubelet's schedule read as its SIGKILL")
	}
}

// TestReadyPods: only pods ready and not on their way out.
func TestReadyPods(t *testing.T) {
	obs := record.Kubernetes{Pods: []record.KubePod{{Name: "c", ReadyNs: 1}, {Name: "a", ReadyNs: 1}, {Name: "b"},
		{Name: "d", ReadyNs: 1, DeletionSeenNs: 2}, {Name: "e", ReadyNs: 1, NotReadyNs: 3}}}
	if got := readyPods(obs); len(got) != 2 || got[0] != "a" || got[1] != "c" {
		t.Errorf("readyPods %q", got)
	}
}
