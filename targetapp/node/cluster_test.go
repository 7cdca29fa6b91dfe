package node_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// startCluster runs cluster.js on 127.0.0.1 with a kernel-chosen port and
// env, in its own process group (killed whole on cleanup, so no worker
// outlives the test); it waits for "up" unless wantUp is false.
func startCluster(t *testing.T, wantUp bool, env ...string) *proc {
	t.Helper()
	p := &proc{t: t, dataDir: t.TempDir(), done: make(chan struct{})}
	p.cmd = exec.Command(nodeBin(t), "cluster.js")
	p.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "LISTEN_HOST=127.0.0.1", "PORT=0", "DATA_DIR=" + p.dataDir}, env...)
	p.cmd.Stderr = &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := p.cmd.Process.Pid
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var ev record.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.TimeNs == 0 {
				t.Errorf("stdout line is not a lifecycle event: %q (%v)", sc.Text(), err)
				continue
			}
			p.mu.Lock()
			p.events = append(p.events, ev)
			p.mu.Unlock()
		}
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	})
	if wantUp {
		up := p.waitEvent(record.EventUp, 10*time.Second)
		var port int
		for _, f := range strings.Fields(up.Msg) {
			fmt.Sscanf(f, "port=%d", &port)
		}
		if port == 0 || !strings.Contains(up.Msg, "runtime=node node=v") {
			t.Fatalf("bad up event: %+v", up)
		}
		p.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	return p
}

// all returns the events named name, and how many of them came after the
// first signal event.
func (p *proc) all(name string) (evs []record.Event, afterSignal int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	signalled := false
	for _, ev := range p.events {
		if ev.Event == record.EventSignal {
			signalled = true
		}
		if ev.Event == name {
			evs = append(evs, ev)
			if signalled {
				afterSignal++
			}
		}
	}
	return evs, afterSignal
}

// waitCount waits until at least n events named name were logged.
func (p *proc) waitCount(name string, n int, timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if evs, _ := p.all(name); len(evs) >= n {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("fewer than %d %q events within %s; events %v; stderr %q", n, name, timeout, p.names(), p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// workerPID is the pid of the first worker forked.
func (p *proc) workerPID() int {
	p.t.Helper()
	forks, _ := p.all(record.EventFork)
	if len(forks) == 0 || forks[0].PID == 0 {
		p.t.Fatalf("no fork event with a pid; events %v", p.names())
	}
	return forks[0].PID
}

// fdCount counts the open file descriptors of pid (/proc/PID/fd).
func fdCount(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("fd count of pid %d: %v", pid, err)
	}
	return len(ents)
}

// waitFds waits until pid has at least n open fds (ok) or timeout passed.
func waitFds(t *testing.T, pid, n int, timeout time.Duration) (got int, ok bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got = fdCount(t, pid)
		if got >= n {
			return got, true
		}
		if time.Now().After(deadline) {
			return got, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestClusterBadEnv(t *testing.T) {
	for _, kv := range []string{"SUPERVISOR=bogus", "CLUSTER_WORKERS=0", "CLUSTER_WORKERS=x", "PROXY_IMPL=copy",
		"BACKEND=nohost", "BACKEND=h:70000", "TEARDOWN_MS=-1", "PORT=x"} {
		p := startCluster(t, false, kv)
		if code, _ := p.wait(10 * time.Second); code != 2 {
			t.Errorf("%s: exit %d, want 2", kv, code)
		}
		k, v, _ := strings.Cut(kv, "=")
		if want := fmt.Sprintf("%s=%q", k, v); !strings.Contains(p.stderr.String(), want) {
			t.Errorf("%s: stderr %q lacks %s", kv, p.stderr.String(), want)
		}
		if n := len(p.names()); n != 0 {
			t.Errorf("%s: %d events logged, want none (nothing was forked)", kv, n)
		}
	}
}

// TestClusterGatedCrashReforksOnce is C2's first half: a worker killed with
// SIGKILL while the pool runs is re-forked exactly once; the SIGTERM that
// follows forks nothing and the primary exits 0.
func TestClusterGatedCrashReforksOnce(t *testing.T) {
	p := startCluster(t, true, "SUPERVISOR=gated", "CLUSTER_WORKERS=2")
	s, b, conn := p.do("POST", "/crash", nil)
	expect(t, "crash", s, b, 200, `"crashing":true`)
	if conn != "close" {
		t.Errorf("crash answer Connection %q, want close", conn)
	}
	p.waitCount(record.EventWorkerExit, 1, 5*time.Second)
	p.waitCount(record.EventFork, 3, 5*time.Second)
	s, b, _ = p.do("GET", "/slow?ms=10", nil) // the pool still serves
	expect(t, "slow after the crash", s, b, 200, `{"ok":true}`)
	client.CloseIdleConnections()
	p.signal(syscall.SIGTERM)
	if code, _ := p.wait(10 * time.Second); code != 0 {
		t.Errorf("exit %d, want 0; events %v", code, p.names())
	}
	forks, forksAfter := p.all(record.EventFork)
	exits, _ := p.all(record.EventWorkerExit)
	if len(forks) != 3 || forksAfter != 0 {
		t.Errorf("%d forks (%d after the signal), want 3 (2 at start + 1 re-fork) and 0", len(forks), forksAfter)
	}
	if len(exits) != 3 || exits[0].Signal != "SIGKILL" || exits[0].Code != nil {
		t.Fatalf("worker exits %+v, want the SIGKILLed one first, then two more", exits)
	}
	if want := fmt.Sprintf("replaces worker=%d", *exits[0].Worker); len(forks) == 3 && forks[2].Msg != want {
		t.Errorf("re-fork msg %q, want %q", forks[2].Msg, want)
	}
	for _, e := range exits[1:] {
		if e.Code == nil || *e.Code != 0 || e.Signal != "" {
			t.Errorf("worker exit after the teardown %+v, want code 0", e)
		}
	}
}

// TestClusterGatedSIGTERM is C2's second half: SIGTERM broadcasts the
// teardown, the workers drain and exit, nothing is forked, exit 0.
func TestClusterGatedSIGTERM(t *testing.T) {
	p := startCluster(t, true, "SUPERVISOR=gated", "CLUSTER_WORKERS=3")
	done := make(chan int, 1)
	go func() {
		res, err := (&http.Client{Timeout: 10 * time.Second}).Get(p.base + "/slow?ms=500")
		if err != nil {
			done <- 0
			return
		}
		res.Body.Close()
		done <- res.StatusCode
	}()
	time.Sleep(100 * time.Millisecond)
	p.signal(syscall.SIGTERM)
	if code, _ := p.wait(10 * time.Second); code != 0 {
		t.Errorf("exit %d, want 0; events %v", code, p.names())
	}
	if s := <-done; s != 200 {
		t.Errorf("request in flight at the signal: status %d, want 200 (drained)", s)
	}
	forks, forksAfter := p.all(record.EventFork)
	if len(forks) != 3 || forksAfter != 0 {
		t.Errorf("%d forks, %d after the signal; want 3 and 0", len(forks), forksAfter)
	}
	if exits, after := p.all(record.EventWorkerExit); len(exits) != 3 || after != 3 {
		t.Errorf("%d worker exits (%d after the signal), want 3 and 3", len(exits), after)
	}
	got := strings.Join(p.names(), " ")
	if !strings.Contains(got, "up signal teardown_broadcast worker_exit") || !strings.HasSuffix(got, "exit") {
		t.Errorf("events %q", got)
	}
}

// TestClusterBlindReforksAfterSignal is C1: the blind supervisor passes
// SIGTERM on, its workers exit and are forked again; the primary keeps
// running until SIGKILL.
func TestClusterBlindReforksAfterSignal(t *testing.T) {
	p := startCluster(t, true, "SUPERVISOR=blind", "CLUSTER_WORKERS=2")
	p.signal(syscall.SIGTERM)
	p.waitCount(record.EventFork, 3, 10*time.Second)
	select {
	case <-p.done:
		t.Fatalf("the blind primary exited after SIGTERM; events %v", p.names())
	case <-time.After(time.Second):
	}
	_, forksAfter := p.all(record.EventFork)
	exits, exitsAfter := p.all(record.EventWorkerExit)
	if forksAfter == 0 || exitsAfter == 0 {
		t.Errorf("%d forks and %d worker exits after the signal, want > 0 each", forksAfter, exitsAfter)
	}
	for _, e := range exits {
		if e.Code == nil || *e.Code != 0 {
			t.Errorf("worker exit %+v, want code 0 (it shut down on the passed-on SIGTERM)", e)
		}
	}
	t.Logf("%d forks after the signal", forksAfter)
	p.signal(syscall.SIGKILL)
	if code, sig := p.wait(5 * time.Second); code != -1 || sig != syscall.SIGKILL {
		t.Errorf("exit %d signal %v, want killed by SIGKILL", code, sig)
	}
}

// TestClusterTeardownForcesExit is C3: a client trickling its request
// headers at 1 byte/s keeps the worker's plain close waiting; TEARDOWN_MS
// ends it with forced_exit and exit code 1.
func TestClusterTeardownForcesExit(t *testing.T) {
	p := startCluster(t, true, "SUPERVISOR=gated", "CLUSTER_WORKERS=1", "TEARDOWN_MS=1500")
	trickle(t, p)
	p.signal(syscall.SIGTERM)
	if code, _ := p.wait(10 * time.Second); code != 1 {
		t.Errorf("exit %d, want 1; events %v", code, p.names())
	}
	f, ok := p.event(record.EventForcedExit)
	if !ok || !strings.Contains(f.Msg, "forced the exit") || !strings.Contains(f.Msg, "1 worker(s) alive") || f.Ms == nil || *f.Ms < 1500 {
		t.Errorf("forced_exit %+v (found %v), want ms >= 1500 and a msg naming the live worker", f, ok)
	}
	if e, ok := p.event(record.EventExit); !ok || e.Code == nil || *e.Code != 1 {
		t.Errorf("exit event %+v, want code 1", e)
	}
	if _, after := p.all(record.EventFork); after != 0 {
		t.Errorf("%d forks after the signal, want 0", after)
	}
}

// TestClusterTrickleHoldsClose is C3 without the timeout: the trickling
// client keeps the plain close waiting; 3 s after the signal the primary
// and its worker still run (then the test kills them).
func TestClusterTrickleHoldsClose(t *testing.T) {
	p := startCluster(t, true, "SUPERVISOR=gated", "CLUSTER_WORKERS=1")
	trickle(t, p)
	p.signal(syscall.SIGTERM)
	p.waitEvent(record.EventTeardownBroadcast, 5*time.Second)
	select {
	case <-p.done:
		t.Fatalf("exited while a client trickled its request; events %v", p.names())
	case <-time.After(3 * time.Second):
	}
	if exits, _ := p.all(record.EventWorkerExit); len(exits) != 0 {
		t.Errorf("worker exits %+v, want none: the close is still waiting", exits)
	}
}

// trickle connects a client that sends its request headers at 1 byte/s
// (never completing them within a test; it stops at the test's end) and
// returns once the worker holds the connection with two bytes sent.
func trickle(t *testing.T, p *proc) {
	t.Helper()
	worker := p.workerPID()
	before := fdCount(t, worker)
	c, err := dialBase(p.base)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); c.Close() })
	sent := make(chan struct{}, 64)
	go func() { // 1 byte/s, never completing the headers within the test
		for _, b := range []byte("GET /slow?ms=10 HTTP/1.1\r\nHost: t\r\n") {
			if _, err := c.Write([]byte{b}); err != nil {
				return
			}
			sent <- struct{}{}
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
		}
	}()
	if got, ok := waitFds(t, worker, before+1, 5*time.Second); !ok {
		t.Fatalf("worker pid %d has %d fds, want the trickling connection (> %d)", worker, got, before)
	}
	<-sent
	<-sent // two bytes are out: the worker's parser has a request in progress
}

// TestClusterCrashSignal: SIGUSR2 to the primary SIGKILLs one worker, the
// lowest id, which the gated supervisor re-forks once.
func TestClusterCrashSignal(t *testing.T) {
	p := startCluster(t, true, "SUPERVISOR=gated", "CLUSTER_WORKERS=2")
	p.signal(syscall.SIGUSR2)
	p.waitCount(record.EventFork, 3, 5*time.Second)
	exits, _ := p.all(record.EventWorkerExit)
	if len(exits) != 1 || exits[0].Signal != "SIGKILL" || exits[0].Worker == nil || *exits[0].Worker != 1 {
		t.Errorf("worker exits %+v, want worker 1 killed by SIGKILL", exits)
	}
	if ev, ok := p.event(record.EventSignal); ok {
		t.Errorf("SIGUSR2 logged as a shutdown signal: %+v", ev)
	}
}
