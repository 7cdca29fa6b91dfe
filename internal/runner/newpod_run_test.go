package runner

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// adminEngine is the fake engine with the proxy's admin calls: every
// copied file and exec'd command is recorded and succeeds.
type adminEngine struct {
	*fakeEngine
	mu     sync.Mutex
	copied []string
	execs  [][]string
}

func (a *adminEngine) CopyFileTo(_ context.Context, _, dst string, _ []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.copied = append(a.copied, dst)
	return nil
}

func (a *adminEngine) Exec(_ context.Context, _ string, cmd []string, _ time.Duration) (int, []byte, []byte, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.execs = append(a.execs, cmd)
	return 0, nil, nil, nil
}

// newPodVariant is k8s-race with action kind terminate and new pod np,
// the propagation delay 100 ms.
func newPodVariant(t *testing.T, np scenarios.NewPod) scenarios.Variant {
	t.Helper()
	v := fakeVariant(t, "k8s-race", 3*time.Second)
	v.Spec.Action = scenarios.Action{Kind: scenarios.ActionTerminate, At: scenarios.Duration(20 * time.Millisecond)}
	v.Spec.Action.SetBlock(&scenarios.Terminate{Grace: scenarios.Duration(time.Second), NewPod: &np})
	d := scenarios.Duration(100 * time.Millisecond)
	v.Spec.Proxy.DeregisterAfter = &d
	return v
}

// TestNewPodRun follows a rolling update's new pod on the fake engine:
// with before_deletion the old pod is deleted only once the new one is
// available; without, the new pod starts at the deletion. It joins the
// proxy the propagation delay after its readiness, and the proxy loads,
// for each change, the file of the state both changes made. Here both
// changes fall due within milliseconds of each other, so either one
// reload carries both or two follow each other; the last state is the
// same.
func TestNewPodRun(t *testing.T) {
	for _, tt := range []struct {
		name   string
		before bool
	}{
		{"available before the deletion", true},
		{"started at the deletion", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "replica-1": happyReplica(), "replica-2": happyReplica(),
				"agent": fakeAgent(3, 3, 0), "proxy": {stdout: []string{caddyReadyLine}}})
			eng := &adminEngine{fakeEngine: f}
			r := newFakeRunner(t, f)
			r.eng = eng
			np := scenarios.NewPod{BeforeDeletion: tt.before, MinReady: scenarios.Duration(50 * time.Millisecond), Timeout: scenarios.Duration(5 * time.Second)}
			m := r.runOnce(context.Background(), newPodVariant(t, np), 1, filepath.Join(t.TempDir(), "run-001"))
			if !m.Valid {
				t.Fatalf("invalid: %s (calls %q)", m.InvalidReason, f.Calls())
			}
			te := m.Action.Termination()
			p := te.NewPod
			if p == nil || p.Name != "replica-2" || p.Upstream != "replica-2:8080" || p.Error != "" {
				t.Fatalf("new pod %+v", p)
			}
			if p.ReadyNs != p.StartedNs || p.AvailableNs < p.ReadyNs+int64(50*time.Millisecond) {
				t.Errorf("ready %d, available %d ns after the start; want 0 (no probe) and at least min_ready", p.ReadyNs-p.StartedNs, p.AvailableNs-p.StartedNs)
			}
			if tt.before && te.DeletedNs < p.AvailableNs {
				t.Errorf("deleted %d ns before the new pod was available", p.AvailableNs-te.DeletedNs)
			}
			if !tt.before && p.StartedNs > te.DeletedNs+int64(time.Second) {
				t.Errorf("new pod started %d ns after the deletion, want at it", p.StartedNs-te.DeletedNs)
			}
			if sent := p.RegisterSentNs - p.ReadyNs; sent < int64(100*time.Millisecond) || p.RegisteredNs < p.RegisterSentNs {
				t.Errorf("joined %d ns after its readiness (acked %d), want the 100 ms propagation", sent, p.RegisteredNs)
			}
			var loads []string
			for _, c := range eng.execs {
				loads = append(loads, c[3])
			}
			d := m.Action.Deregister
			if d == nil || d.AckedNs == 0 || len(loads) < 1 || len(loads) > 2 || loads[len(loads)-1] != endpointFiles[endpointState{false, true}] {
				t.Fatalf("deregistration %+v, loads %q; want one or two, the last without the old pod and with the new", d, loads)
			}
			if together := d.SentNs == p.RegisterSentNs; together != (len(loads) == 1) {
				t.Errorf("leaving sent at %d, joining at %d, %d loads: one load must carry both", d.SentNs, p.RegisterSentNs, len(loads))
			}
			if slices.Sort(eng.copied); len(eng.copied) != len(endpointFiles) {
				t.Errorf("copied %q, want every endpoint file", eng.copied)
			}
			if live := f.live(); len(live) != 0 {
				t.Errorf("left running: %q", live)
			}
		})
	}
}

// TestNewPodNeverReady: a new pod whose probe never passes makes the run
// invalid, saying a rollout would stall, and nothing is left running.
func TestNewPodNeverReady(t *testing.T) {
	f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "replica-1": happyReplica(), "replica-2": happyReplica(),
		"agent": fakeAgent(3, 3, 0), "proxy": {stdout: []string{caddyReadyLine}}})
	r := newFakeRunner(t, f)
	r.eng = &adminEngine{fakeEngine: f}
	np := scenarios.NewPod{BeforeDeletion: true, Timeout: scenarios.Duration(300 * time.Millisecond),
		Readiness: &scenarios.Readiness{Path: "/readyz", Period: scenarios.Duration(100 * time.Millisecond), Timeout: scenarios.Duration(50 * time.Millisecond), SuccessThreshold: 1}}
	m := r.runOnce(context.Background(), newPodVariant(t, np), 1, filepath.Join(t.TempDir(), "run-001"))
	if m.Valid || !strings.Contains(m.InvalidReason, "new pod replica-2 never became available") || !strings.Contains(m.InvalidReason, "stalls") {
		t.Fatalf("valid %v, reason %q", m.Valid, m.InvalidReason)
	}
	if live := f.live(); len(live) != 0 {
		t.Errorf("left running: %q", live)
	}
}
