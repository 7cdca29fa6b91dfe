package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/shutdownlab/shutdownlab/internal/kubeapi"
	"github.com/shutdownlab/shutdownlab/record"
)

// fakeKube is an in-memory cluster for the kubernetes platform's
// lifecycle: it records every call, refuses (and notes) any call that
// names a namespace other than the run's, and plays a scripted agent log
// and rollout. Faults are set per test.
type fakeKube struct {
	mu                  sync.Mutex
	ns                  string   // the namespace the run created
	created, deleted    []string // namespaces
	calls, outside      []string
	deployment          *appsv1.Deployment
	failDeployment      error // CreateDeployment's answer
	startErr            error // WaitDeploymentAvailable's answer
	rolloutErr          error // RolloutRestart's answer
	rollouts            int
	agentDelay          time.Duration // the agent's log waits this long before its requests
	agentLog            string
	blockAvailableUntil <-chan struct{} // WaitDeploymentAvailable waits for it (nil: at once)
	agentDone           chan struct{}   // closed once the agent's log is written: its pod exits then
}

func (f *fakeKube) call(ns, what string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, what+" "+ns)
	if f.ns != "" && ns != f.ns {
		f.outside = append(f.outside, what+" "+ns)
		return fmt.Errorf("fake: %s in namespace %q, not the run's %q", what, ns, f.ns)
	}
	return nil
}

func (f *fakeKube) Info() kubeapi.Info {
	return kubeapi.Info{Context: "fake", Server: "https://fake:6443", ServerVersion: "v1.34.4"}
}

func (f *fakeKube) CreateNamespace(_ context.Context, name string, _ map[string]string) error {
	f.mu.Lock()
	f.ns, f.created = name, append(f.created, name)
	f.mu.Unlock()
	return f.call(name, "create namespace")
}

func (f *fakeKube) DeleteNamespace(_ context.Context, name string, _ time.Duration) error {
	f.mu.Lock()
	f.deleted = append(f.deleted, name)
	f.mu.Unlock()
	return f.call(name, "delete namespace")
}

func (f *fakeKube) CreateDeployment(_ context.Context, ns string, d *appsv1.Deployment) error {
	if err := f.call(ns, "create deployment"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deployment = d.DeepCopy()
	return f.failDeployment
}

func (f *fakeKube) CreateService(_ context.Context, ns string, _ *corev1.Service) (string, error) {
	return "10.96.0.10", f.call(ns, "create service")
}

func (f *fakeKube) CreatePod(_ context.Context, ns string, _ *corev1.Pod) error {
	return f.call(ns, "create pod")
}

func (f *fakeKube) GetDeployment(_ context.Context, ns, _ string) (*appsv1.Deployment, error) {
	if err := f.call(ns, "get deployment"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.deployment.DeepCopy(), nil
}

func (f *fakeKube) WaitDeploymentAvailable(ctx context.Context, ns, _ string, _ time.Duration) error {
	if err := f.call(ns, "wait deployment"); err != nil {
		return err
	}
	if f.blockAvailableUntil != nil {
		select {
		case <-f.blockAvailableUntil:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return f.startErr
}

// WaitPodExit: the agent's pod exits once its log was written; any other
// pod at once.
func (f *fakeKube) WaitPodExit(ctx context.Context, ns, name string, timeout time.Duration) (kubeapi.PodExit, error) {
	if err := f.call(ns, "wait pod exit "+name); err != nil {
		return kubeapi.PodExit{}, err
	}
	if name == kubeAgent {
		select {
		case <-f.agentDone:
		case <-time.After(timeout):
			return kubeapi.PodExit{}, nil
		case <-ctx.Done():
			return kubeapi.PodExit{}, ctx.Err()
		}
	}
	return kubeapi.PodExit{Exited: true, Reason: "Completed"}, nil
}

// FollowLogs plays the agent's log (its start line at once, its requests
// and summary after agentDelay); target pods log nothing.
func (f *fakeKube) FollowLogs(ctx context.Context, ns, pod, _ string, w io.Writer) error {
	if err := f.call(ns, "logs "+pod); err != nil {
		return err
	}
	if pod != kubeAgent {
		return nil
	}
	start, rest, _ := strings.Cut(f.agentLog, "\n")
	if _, err := io.WriteString(w, start+"\n"); err != nil {
		return err
	}
	select {
	case <-time.After(f.agentDelay):
	case <-ctx.Done():
		return ctx.Err()
	}
	_, err := io.WriteString(w, rest)
	close(f.agentDone)
	return err
}

func (f *fakeKube) DeletePod(_ context.Context, ns, _ string, _ *int64) (int64, error) {
	return time.Now().UnixNano(), f.call(ns, "delete pod")
}

func (f *fakeKube) RolloutRestart(_ context.Context, ns, _ string) (int64, error) {
	if err := f.call(ns, "rollout restart"); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rollouts++
	return time.Now().UnixNano(), f.rolloutErr
}

func (f *fakeKube) SetImage(_ context.Context, ns, _, _, _ string) (int64, error) {
	return time.Now().UnixNano(), f.call(ns, "set image")
}

func (f *fakeKube) WaitRolloutComplete(_ context.Context, ns, _ string, _ time.Duration) (int64, error) {
	return time.Now().UnixNano(), f.call(ns, "wait rollout")
}

func (f *fakeKube) Watch(_ context.Context, ns, _, _ string) (kubeRecorder, error) {
	return fakeRecorder{}, f.call(ns, "watch")
}

// fakeRecorder saw nothing.
type fakeRecorder struct{}

func (fakeRecorder) Snapshot() record.Kubernetes          { return record.Kubernetes{} }
func (fakeRecorder) Stop(time.Duration) record.Kubernetes { return record.Kubernetes{} }

// fakeAgentLog is an agent's output: its start line, n ok requests inside
// the load and a summary that agrees with them.
func fakeAgentLog(n int, start time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"start","load_start_ns":%d}`+"\n", start.UnixNano())
	for i := range n {
		t := start.Add(time.Duration(i+1) * 10 * time.Millisecond).UnixNano()
		fmt.Fprintf(&b, `{"type":"req","id":"r%d","class":"ok","start_ns":%d,"end_ns":%d,"status":200}`+"\n", i, t, t+int64(time.Millisecond))
	}
	fmt.Fprintf(&b, `{"type":"summary","started":%d,"by_class":{"ok":%d}}`+"\n", n, n)
	return b.String()
}

// kubeFakeRun runs one repetition of rollout-inflight on platform
// kubernetes against f, with a short load and action.
func kubeFakeRun(t *testing.T, ctx context.Context, f *fakeKube) record.Meta {
	t.Helper()
	v := fakeVariant(t, "rollout-inflight", 2*time.Second, "platform=kubernetes", "load.duration=1s", "action.at=200ms")
	r := newFakeRunner(t, newFakeEngine(nil))
	r.setService(kubeSessionName, kubeCluster(f))
	return r.runOnce(ctx, v, 1, t.TempDir())
}

// TestKubeFakeLifecycle: on an in-memory cluster the kubernetes platform
// creates its namespace first, touches nothing outside it, rolls the
// Deployment once, and deletes the namespace on every path: a valid run,
// a Deployment the API refuses, a pod that cannot start, a rollout the
// API refuses, and a run cancelled (Ctrl-C) during its set-up.
func TestKubeFakeLifecycle(t *testing.T) {
	pullErr := &kubeapi.PodStartError{Pod: "target-1", Reason: "ErrImagePull", Message: `Failed to pull image "x": not found`}
	for _, tt := range []struct {
		name     string
		fault    func(*fakeKube)
		cancel   bool   // cancel the run while the Deployment is not yet available
		valid    bool   // the run's Meta.Valid
		reason   string // in the invalid run's reason
		rollouts int
	}{
		{"valid", func(*fakeKube) {}, false, true, "", 1},
		{"deployment refused", func(f *fakeKube) { f.failDeployment = errors.New("admission webhook denied the request") }, false, false, "admission webhook denied the request", 0},
		{"pod cannot start", func(f *fakeKube) { f.startErr = pullErr }, false, false, "ErrImagePull", 0},
		{"rollout refused", func(f *fakeKube) { f.rolloutErr = errors.New("deployments.apps is forbidden") }, false, false, "deployments.apps is forbidden", 1},
		{"interrupted during set-up", func(*fakeKube) {}, true, false, "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeKube{agentDelay: 1200 * time.Millisecond, agentDone: make(chan struct{})}
			f.agentLog = fakeAgentLog(20, time.Now().Add(time.Second))
			tt.fault(f)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if tt.cancel {
				block := make(chan struct{})
				defer close(block)
				f.blockAvailableUntil = block
				go func() { time.Sleep(300 * time.Millisecond); cancel() }()
			}
			m := kubeFakeRun(t, ctx, f)
			f.mu.Lock()
			defer f.mu.Unlock()
			if m.Valid != tt.valid {
				t.Errorf("valid %v, want %v (reason %q)", m.Valid, tt.valid, m.InvalidReason)
			}
			if !strings.Contains(m.InvalidReason, tt.reason) {
				t.Errorf("reason %q lacks %q", m.InvalidReason, tt.reason)
			}
			if len(f.created) != 1 || len(f.deleted) != 1 || f.created[0] != f.deleted[0] {
				t.Errorf("namespaces created %v, deleted %v: want the run's one, deleted at the end", f.created, f.deleted)
			}
			if len(f.outside) > 0 {
				t.Errorf("calls outside the run's namespace: %v", f.outside)
			}
			if tt.valid {
				if m.Agent == nil || m.Agent.Started != 20 {
					t.Errorf("agent summary %+v, want 20 requests started", m.Agent)
				}
				if ro := m.Rollout(); ro == nil || ro.SentNs == 0 || !ro.Converged {
					t.Errorf("rollout record %+v: want sent and converged", ro)
				}
			}
			if f.rollouts != tt.rollouts {
				t.Errorf("%d rollouts, want %d; calls %v", f.rollouts, tt.rollouts, f.calls)
			}
		})
	}
}
