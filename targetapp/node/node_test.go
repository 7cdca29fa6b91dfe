// Package node_test runs the Node target (server.js) as a host process on
// loopback and checks the target protocol and the three shutdown modes.
// The tests need the host's node (and node-ws); they fail without it, and
// SHUTDOWNLAB_SKIP_NODE=1 (make test-unit) skips them.
package node_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// proc is one running server.js.
type proc struct {
	t       *testing.T
	cmd     *exec.Cmd
	dataDir string
	base    string // http://127.0.0.1:port
	stderr  bytes.Buffer
	done    chan struct{}
	waitErr error

	mu     sync.Mutex
	events []record.Event
}

func nodeBin(t *testing.T) string {
	t.Helper()
	if os.Getenv("SHUTDOWNLAB_SKIP_NODE") == "1" {
		t.Skip("SHUTDOWNLAB_SKIP_NODE=1: the unit tier runs no host node (make test runs these)")
	}
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("these tests need node on PATH (make test installs it: scripts/prereqs.sh; SHUTDOWNLAB_SKIP_NODE=1 skips them): %v", err)
	}
	return p
}

// startNode runs server.js on 127.0.0.1 with a kernel-chosen port, a temp
// DATA_DIR and env; it waits for "up" unless wantUp is false.
func startNode(t *testing.T, wantUp bool, env ...string) *proc {
	t.Helper()
	p := &proc{t: t, dataDir: t.TempDir(), done: make(chan struct{})}
	p.cmd = exec.Command(nodeBin(t), "server.js")
	p.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "LISTEN_HOST=127.0.0.1", "PORT=0", "DATA_DIR=" + p.dataDir}, env...)
	p.cmd.Stderr = &p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
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
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	if wantUp {
		up := p.waitEvent("up", 10*time.Second)
		var port int
		for _, f := range strings.Fields(up.Msg) {
			fmt.Sscanf(f, "port=%d", &port)
		}
		if port == 0 || up.Mode == "" || !strings.Contains(up.Msg, "runtime=node node=v") {
			t.Fatalf("bad up event: %+v", up)
		}
		p.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	return p
}

// waitEvent waits for the first event named name.
func (p *proc) waitEvent(name string, timeout time.Duration) record.Event {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if ev, ok := p.event(name); ok {
			return ev
		}
		select {
		case <-p.done:
			if ev, ok := p.event(name); ok {
				return ev
			}
			p.t.Fatalf("node exited (%v) before %q; events %v; stderr %q", p.waitErr, name, p.names(), p.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no %q event within %s; events %v", name, timeout, p.names())
		}
	}
}

func (p *proc) event(name string) (record.Event, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ev := range p.events {
		if ev.Event == name {
			return ev, true
		}
	}
	return record.Event{}, false
}

func (p *proc) names() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n []string
	for _, ev := range p.events {
		n = append(n, ev.Event)
	}
	return n
}

func (p *proc) signal(s syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(s); err != nil {
		p.t.Fatal(err)
	}
}

// wait waits for the exit; code is -1 when a signal killed the process.
func (p *proc) wait(timeout time.Duration) (code int, sig syscall.Signal) {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("node still running %s later; events %v", timeout, p.names())
	}
	ws := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return -1, ws.Signal()
	}
	return ws.ExitStatus(), 0
}

var client = &http.Client{Timeout: 30 * time.Second}

// do sends a request and returns the status, the body and the response's
// Connection header.
func (p *proc) do(method, path string, hdr map[string]string) (int, string, string) {
	p.t.Helper()
	req, err := http.NewRequest(method, p.base+path, nil)
	if err != nil {
		p.t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := client.Do(req)
	if err != nil {
		p.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	conn := res.Header.Get("Connection")
	if res.Close {
		conn = "close"
	}
	return res.StatusCode, strings.TrimSpace(string(b)), conn
}

func (p *proc) file(name string) string {
	b, _ := os.ReadFile(filepath.Join(p.dataDir, name))
	return string(b)
}

func expect(t *testing.T, what string, gotStatus int, gotBody string, wantStatus int, wantBody string) {
	t.Helper()
	if gotStatus != wantStatus || !strings.Contains(gotBody, wantBody) {
		t.Errorf("%s = %d %s, want %d containing %s", what, gotStatus, gotBody, wantStatus, wantBody)
	}
}

func TestEndpoints(t *testing.T) {
	p := startNode(t, true, "MODE=full")
	s, b, _ := p.do("GET", "/readyz", nil)
	expect(t, "readyz", s, b, 200, `{"ready":true,"inflight":0}`)
	s, b, _ = p.do("GET", "/livez", nil)
	expect(t, "livez", s, b, 200, `{"live":true}`)
	s, b, _ = p.do("GET", "/slow?ms=50", nil)
	expect(t, "slow", s, b, 200, `{"ok":true}`)
	s, b, _ = p.do("GET", "/slow?ms=x", nil)
	expect(t, "slow?ms=x", s, b, 400, `bad ms=\"x\"`)
	s, b, _ = p.do("POST", "/slow", nil)
	expect(t, "POST /slow", s, b, 405, "method")
	s, b, _ = p.do("GET", "/nope", nil)
	expect(t, "/nope", s, b, 404, "not found")
	s, b, _ = p.do("POST", "/write?ms=10", nil)
	expect(t, "write without id", s, b, 400, "X-Request-Id")
	for _, id := range []string{"w-1", "w-2"} {
		s, b, _ = p.do("POST", "/write?ms=10", map[string]string{"X-Request-Id": id})
		expect(t, "write "+id, s, b, 200, `{"ok":true}`)
	}
	if got := p.file("ledger.log"); got != "w-1\nw-2\n" {
		t.Errorf("ledger = %q", got)
	}
	s, b, _ = p.do("GET", "/job?steps=3&step_ms=30", nil)
	expect(t, "job", s, b, 202, `{"accepted":true,"steps":3,"step_ms":30}`)
	s, b, _ = p.do("GET", "/job?steps=3&step_ms=30", nil)
	expect(t, "second job", s, b, 409, "already running")
	s, b, _ = p.do("GET", "/job?steps=0", nil)
	expect(t, "job steps=0", s, b, 400, `bad steps=\"0\"`)
	c := p.waitEvent("job_commit", 5*time.Second)
	if *c.HandlerJobStep != 3 || *c.HandlerJobSteps != 3 {
		t.Errorf("job_commit = %+v", c)
	}
	if got := p.file("job.log"); got != "step 1/3\nstep 2/3\nstep 3/3\nCOMMIT\n" {
		t.Errorf("job.log = %q", got)
	}
	client.CloseIdleConnections()
	p.signal(syscall.SIGTERM)
	if code, _ := p.wait(5 * time.Second); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

func TestBadEnv(t *testing.T) {
	for _, kv := range []string{"MODE=bogus", "PORT=x", "PORT=70000", "SWEEP_MS=0", "DRAIN_MS=-1", "KEEPALIVE_MS=1.5"} {
		p := startNode(t, false, kv)
		if code, _ := p.wait(10 * time.Second); code != 2 {
			t.Errorf("%s: exit %d, want 2", kv, code)
		}
		k, v, _ := strings.Cut(kv, "=")
		if want := fmt.Sprintf("%s=%q", k, v); !strings.Contains(p.stderr.String(), want) {
			t.Errorf("%s: stderr %q lacks %s", kv, p.stderr.String(), want)
		}
	}
}

// TestFullReadinessFlips: SIGTERM turns /readyz 503 while /livez stays 200
// during PRESTOP_MS; a second signal is logged and ignored; exit 0.
func TestFullReadinessFlips(t *testing.T) {
	p := startNode(t, true, "MODE=full", "PRESTOP_MS=1000")
	p.signal(syscall.SIGTERM)
	p.waitEvent("ready_false", 5*time.Second)
	s, b, conn := p.do("GET", "/readyz", nil)
	expect(t, "readyz draining", s, b, 503, `"ready":false`)
	if conn == "close" {
		t.Errorf("Connection: close during the pre-stop wait")
	}
	s, b, _ = p.do("GET", "/livez", nil)
	expect(t, "livez draining", s, b, 200, `{"live":true}`)
	p.signal(syscall.SIGTERM)
	client.CloseIdleConnections()
	if code, _ := p.wait(5 * time.Second); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	want := "up signal ready_false signal listener_closed drained exit"
	if got := strings.Join(p.names(), " "); got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	p.mu.Lock()
	second := p.events[3]
	p.mu.Unlock()
	if second.Msg != "ignored: already draining" {
		t.Errorf("second signal event %+v", second)
	}
	if d, _ := p.event("drained"); d.Ms == nil || *d.Ms < 1000 {
		t.Errorf("drained %+v: want ms >= PRESTOP_MS", d)
	}
}

// TestFullWaitsForJobAndRequest: the drain waits for an in-flight request
// (answered with Connection: close) and the background job's COMMIT.
func TestFullWaitsForJobAndRequest(t *testing.T) {
	p := startNode(t, true, "MODE=full", "DRAIN_MS=10000")
	s, b, _ := p.do("GET", "/job?steps=5&step_ms=150", nil)
	expect(t, "job", s, b, 202, "accepted")
	type result struct {
		s       int
		b, conn string
	}
	res := make(chan result, 1)
	go func() { s, b, c := p.do("GET", "/slow?ms=400", nil); res <- result{s, b, c} }()
	time.Sleep(100 * time.Millisecond)
	p.signal(syscall.SIGTERM)
	r := <-res
	if r.s != 200 || r.conn != "close" {
		t.Errorf("in-flight request: %d %q Connection %q, want 200 with Connection: close", r.s, r.b, r.conn)
	}
	if code, _ := p.wait(10 * time.Second); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	if got := p.file("job.log"); !strings.HasSuffix(got, "step 5/5\nCOMMIT\n") {
		t.Errorf("job.log = %q, want COMMIT", got)
	}
	names := strings.Join(p.names(), " ")
	if !strings.Contains(names, "job_commit drained exit") {
		t.Errorf("events %q: want job_commit before drained", names)
	}
}

// TestCloseFinishesInflight: close mode lets a 1 s request finish and exits
// 0 once the client closes its connection. The response still says
// keep-alive (P6 shape): close() does not turn keep-alive off.
func TestCloseFinishesInflight(t *testing.T) {
	p := startNode(t, true, "MODE=close")
	done := make(chan [3]string, 1)
	t0 := time.Now()
	go func() {
		s, b, c := p.do("GET", "/slow?ms=1000", nil)
		done <- [3]string{fmt.Sprint(s), b, c}
	}()
	time.Sleep(200 * time.Millisecond)
	p.signal(syscall.SIGTERM)
	p.waitEvent("listener_closed", 2*time.Second)
	r := <-done
	if r[0] != "200" || r[2] == "close" {
		t.Errorf("in-flight response %v, want 200 without Connection: close", r)
	}
	t.Logf("response after %s, Connection %q", time.Since(t0).Round(time.Millisecond), r[2])
	client.CloseIdleConnections()
	if code, _ := p.wait(5 * time.Second); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	for _, n := range []string{"signal", "listener_closed", "shutdown_returned", "exit"} {
		p.waitEvent(n, time.Second)
	}
}

// TestCloseKeepAliveHoldsExit is P6's shape: the client keeps its socket
// open after the answer; close() returns only when Node's keep-alive timer
// (KEEPALIVE_MS) closes it.
func TestCloseKeepAliveHoldsExit(t *testing.T) {
	p := startNode(t, true, "MODE=close", "KEEPALIVE_MS=1500")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	done := make(chan time.Time, 1)
	go func() {
		res, err := c.Get(p.base + "/slow?ms=500")
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		done <- time.Now()
	}()
	time.Sleep(100 * time.Millisecond)
	p.signal(syscall.SIGTERM)
	answered := <-done
	if code, _ := p.wait(10 * time.Second); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	held := time.Since(answered)
	ret, _ := p.event("shutdown_returned")
	t.Logf("exit %s after the answer (KEEPALIVE_MS=1500); close() returned %.0f ms after SIGTERM", held.Round(time.Millisecond), *ret.Ms)
	if held < 1200*time.Millisecond {
		t.Errorf("exited %s after the answer: the idle keep-alive socket should hold close() ~1.5 s", held)
	}
}

// TestFullDeadline is P8's shape: a request that never returns; DRAIN_MS=500
// ends the drain with "deadline" inflight=1 and exit 1.
func TestFullDeadline(t *testing.T) {
	p := startNode(t, true, "MODE=full", "DRAIN_MS=500")
	go func() {
		req, _ := http.NewRequest("GET", p.base+"/slow?ms=600000", nil)
		res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
		if err == nil {
			res.Body.Close()
		}
	}()
	for i := 0; ; i++ {
		if _, b, _ := p.do("GET", "/readyz", nil); strings.Contains(b, `"inflight":1`) {
			break
		}
		if i > 200 {
			t.Fatal("the stuck request never counted as in flight")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t0 := time.Now()
	p.signal(syscall.SIGTERM)
	if code, _ := p.wait(5 * time.Second); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	d := p.waitEvent("deadline", time.Second)
	if d.Inflight == nil || *d.Inflight != 1 || d.Ms == nil || *d.Ms < 500 {
		t.Errorf("deadline event %+v, want inflight=1, ms >= 500", d)
	}
	if e := p.waitEvent("exit", time.Second); e.Code == nil || *e.Code != 1 {
		t.Errorf("exit event %+v", e)
	}
	t.Logf("exit 1 after %s (deadline at %.1f ms)", time.Since(t0).Round(time.Millisecond), *d.Ms)
}

// TestNoneDiesOnSIGTERM: without a handler, a non-PID-1 Node process takes
// SIGTERM's default action and dies from it, logging nothing. (Only as PID
// 1 in a container does it ignore the signal: P1, tested in
// internal/images.)
func TestNoneDiesOnSIGTERM(t *testing.T) {
	p := startNode(t, true, "MODE=none")
	p.signal(syscall.SIGTERM)
	code, sig := p.wait(5 * time.Second)
	if code != -1 || sig != syscall.SIGTERM {
		t.Errorf("exit code %d signal %v, want killed by SIGTERM", code, sig)
	}
	if got := strings.Join(p.names(), " "); got != "up" {
		t.Errorf("events %q, want only up", got)
	}
}
