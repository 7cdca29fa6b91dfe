package runner

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
)

// kubeAgentProc is the load agent as a pod of the run's namespace.
type kubeAgentProc struct {
	kc kubeCluster
	ns string
}

// logs follows the pod's log. The API serves stdout and stderr as one
// stream, line by line: a line that opens a JSON object is the agent's
// record (stdout), any other its own diagnostics (stderr).
func (a kubeAgentProc) logs(ctx context.Context, stdout, stderr io.Writer) error {
	d := &lineDemux{records: stdout, other: stderr}
	err := a.kc.FollowLogs(ctx, a.ns, kubeAgent, kubeAgent, d)
	d.flush()
	return err
}

// waitExit waits for the agent's container to end, as the engine's
// WaitExit does for a container.
func (a kubeAgentProc) waitExit(ctx context.Context, window time.Duration) (bool, docker.State, error) {
	e, err := a.kc.WaitPodExit(ctx, a.ns, kubeAgent, window)
	if err != nil || !e.Exited {
		return false, docker.State{Running: err == nil && !e.Gone}, err
	}
	st := docker.State{ExitCode: e.Code, OOMKilled: e.OOMKilled, Error: e.Reason}
	if e.FinishedAtNs > 0 {
		st.FinishedAt = time.Unix(0, e.FinishedAtNs)
	}
	return true, st, nil
}

// signal deletes the agent's pod: with its grace period for SIGTERM (the
// kubelet sends it; the agent drains and prints its summary), at once for
// SIGKILL.
func (a kubeAgentProc) signal(ctx context.Context, sig string) error {
	grace := int64(agentDrain.Seconds()) + 5
	if sig == "SIGKILL" {
		grace = 0
	}
	_, err := a.kc.DeletePod(ctx, a.ns, kubeAgent, &grace)
	return err
}

// lineDemux splits one interleaved stream into records (lines that open a
// JSON object) and everything else.
type lineDemux struct {
	records, other io.Writer
	partial        []byte
}

func (d *lineDemux) Write(p []byte) (int, error) {
	d.partial = append(d.partial, p...)
	for {
		i := bytes.IndexByte(d.partial, '\n')
		if i < 0 {
			break
		}
		d.line(d.partial[:i+1])
		d.partial = d.partial[i+1:]
	}
	if len(d.partial) == 0 {
		d.partial = nil
	}
	return len(p), nil
}

// flush passes on a last line without its newline.
func (d *lineDemux) flush() {
	if len(d.partial) > 0 {
		d.line(d.partial)
		d.partial = nil
	}
}

func (d *lineDemux) line(l []byte) {
	w := d.other
	if t := bytes.TrimLeft(l, " \t"); len(t) > 0 && t[0] == '{' {
		w = d.records
	}
	_, _ = w.Write(l) // the writers keep their own errors (agentStream)
}

// podLogs follows the output of every target pod as it starts, each into
// its run directory's app log (resultdir.AppLog), until stop.
type podLogs struct {
	mu      sync.Mutex
	started map[string]bool
	files   map[string]string // pod name -> log file
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

func newPodLogs() *podLogs { return &podLogs{started: map[string]bool{}, files: map[string]string{}} }

// follow starts, in the background, a follower per target pod the
// recorder has seen running, polling it until stop.
func (l *podLogs) follow(ctx context.Context, kc kubeCluster, ns, container, dir string, rec kubeRecorder) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), kubeLogBound)
	l.mu.Lock()
	l.cancel = cancel
	l.mu.Unlock()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			for _, p := range rec.Snapshot().Pods {
				if p.RunningNs > 0 || p.TerminatedNs > 0 {
					l.start(fctx, kc, ns, container, dir, p.Name)
				}
			}
			select {
			case <-fctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// start follows pod's log into its app log file, once.
func (l *podLogs) start(ctx context.Context, kc kubeCluster, ns, container, dir, pod string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started[pod] {
		return
	}
	l.started[pod] = true
	path := filepath.Join(dir, resultdir.AppLog(pod))
	l.files[pod] = path
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		f, err := os.Create(path)
		if err != nil {
			return
		}
		defer f.Close()
		_ = kc.FollowLogs(ctx, ns, pod, container, f)
	}()
}

// stop ends every follower and waits for them.
func (l *podLogs) stop() {
	l.mu.Lock()
	cancel := l.cancel
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	l.wg.Wait()
}

// file is pod's app log ("" when none was followed).
func (l *podLogs) file(pod string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.files[pod]
}

// pods are the pods followed, by name.
func (l *podLogs) pods() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for p := range l.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}
