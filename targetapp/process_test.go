package targetapp

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// targetBin is the cmd/target binary built once by TestMain ("" in -short).
var targetBin string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "targetapp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	targetBin = filepath.Join(dir, "target")
	build := exec.Command("go", "build", "-o", targetBin, "github.com/shutdownlab/shutdownlab/cmd/target")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cmd/target: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// child is a running target process.
type child struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:port
	dataDir string
	stderr  syncBuffer
	done    chan struct{} // closed once the process was waited for
	state   *os.ProcessState

	mu     sync.Mutex
	events []record.Event
	bad    []string // stdout lines that are not events
}

// startChild starts the target with env on 127.0.0.1 and a kernel-chosen
// port, waits for its "up" event and registers its kill in t.Cleanup.
func startChild(t *testing.T, env ...string) *child {
	t.Helper()
	if targetBin == "" {
		t.Skip("process tests need the binary; skipped in -short mode")
	}
	c := &child{dataDir: t.TempDir(), done: make(chan struct{})}
	c.cmd = exec.Command(targetBin)
	c.cmd.Env = append(os.Environ(), "LISTEN_HOST=127.0.0.1", "PORT=0", "DATA_DIR="+c.dataDir)
	c.cmd.Env = append(c.cmd.Env, env...)
	c.cmd.Stderr = &c.stderr
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			t.Error("child not reaped 5 s after kill")
		}
	})
	go c.read(stdout)
	up := c.waitEvent(t, "up", 5*time.Second)
	var port int
	for _, f := range strings.Fields(up.Msg) {
		if p, ok := strings.CutPrefix(f, "port="); ok {
			fmt.Sscan(p, &port)
		}
	}
	if port == 0 {
		t.Fatalf("no port in up event %+v", up)
	}
	c.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	return c
}

func (c *child) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var e record.Event
		err := json.Unmarshal(sc.Bytes(), &e)
		c.mu.Lock()
		if err != nil || e.TimeNs == 0 || e.Event == "" {
			c.bad = append(c.bad, sc.Text())
		} else {
			c.events = append(c.events, e)
		}
		c.mu.Unlock()
	}
	_ = c.cmd.Wait()
	c.state = c.cmd.ProcessState
	close(c.done)
}

func (c *child) snapshot() []record.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.events)
}

// waitEvent waits for the first event named name.
func (c *child) waitEvent(t *testing.T, name string, timeout time.Duration) record.Event {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if e := find(c.snapshot(), name); len(e) > 0 {
			return e[0]
		}
		select {
		case <-c.done:
			if e := find(c.snapshot(), name); len(e) > 0 {
				return e[0]
			}
			t.Fatalf("process exited (%v) without %q; events %v; stderr %q", c.state, name, names(c.snapshot()), c.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q event within %v; events %v", name, timeout, names(c.snapshot()))
		}
	}
}

// signal sends sig and returns when it was sent.
func (c *child) signal(t *testing.T, sig os.Signal) time.Time {
	t.Helper()
	at := time.Now()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	return at
}

// waitExit waits for the process to end, checks its stdout was all events,
// and returns its state.
func (c *child) waitExit(t *testing.T, within time.Duration) *os.ProcessState {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(within):
		t.Fatalf("process still running %v later; events %v", within, names(c.snapshot()))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bad) > 0 {
		t.Errorf("stdout lines that are not events: %q", c.bad)
	}
	return c.state
}

// waitInflight polls /readyz until it reports n in flight.
func (c *child) waitInflight(t *testing.T, n int) {
	t.Helper()
	probe := client(false)
	eventually(t, 3*time.Second, fmt.Sprintf("inflight %d", n), func() bool {
		resp, err := probe.Get(c.base + "/readyz")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var body struct{ Inflight int }
		return json.NewDecoder(resp.Body).Decode(&body) == nil && body.Inflight == n
	})
}

func exitEvent(t *testing.T, evs []record.Event) int {
	t.Helper()
	e := find(evs, "exit")
	if len(e) != 1 || e[0].Code == nil {
		t.Fatalf("exit events %+v", e)
	}
	return *e[0].Code
}

func sinceSignal(sig, e record.Event) time.Duration { return time.Duration(e.TimeNs - sig.TimeNs) }

func TestProcessClose(t *testing.T) {
	t.Parallel()
	c := startChild(t, "MODE=close")
	res := getAsync(client(true), c.base+"/slow?ms=1000")
	c.waitInflight(t, 1)
	c.signal(t, syscall.SIGTERM)
	got := <-res
	if got.err != nil || got.resp.StatusCode != 200 {
		t.Fatalf("in-flight request = %v %v, want 200", got.resp, got.err)
	}
	if st := c.waitExit(t, 5*time.Second); st.ExitCode() != 0 {
		t.Errorf("exit %v, want 0", st)
	}
	evs := c.snapshot()
	if code := exitEvent(t, evs); code != 0 {
		t.Errorf("exit event code %d", code)
	}
	if s := find(evs, "signal"); len(s) != 1 || s[0].Signal != "SIGTERM" {
		t.Errorf("signal events %+v", s)
	}
	if slices.Contains(names(evs), "ready_false") {
		t.Errorf("close mode flipped readiness: %v", names(evs))
	}
}

func TestProcessFull(t *testing.T) {
	t.Parallel()
	c := startChild(t, "MODE=full", "PRESTOP_MS=500", "DRAIN_MS=5000", "SWEEP_MS=50")
	res := getAsync(client(true), c.base+"/slow?ms=1000")
	c.waitInflight(t, 1)
	c.signal(t, syscall.SIGTERM)
	sig := c.waitEvent(t, "signal", 2*time.Second)
	rf := c.waitEvent(t, "ready_false", 2*time.Second)
	if d := sinceSignal(sig, rf); d > 100*time.Millisecond {
		t.Errorf("ready_false %v after the signal", d)
	}
	probe := client(false)
	for path, want := range map[string]int{"/readyz": 503, "/livez": 200, "/slow?ms=50": 200} {
		got := <-getAsync(probe, c.base+path)
		if got.err != nil || got.resp.StatusCode != want {
			t.Errorf("GET %s during pre-stop = %v %v, want %d", path, got.resp, got.err, want)
		}
	}
	if slices.Contains(names(c.snapshot()), "listener_closed") {
		t.Fatal("pre-stop probes ran after listener_closed; test inconclusive")
	}
	got := <-res
	if got.err != nil || got.resp.StatusCode != 200 || !got.resp.Close {
		t.Errorf("in-flight request = %v %v, want 200 with Connection: close", got.resp, got.err)
	}
	if st := c.waitExit(t, 5*time.Second); st.ExitCode() != 0 {
		t.Errorf("exit %v, want 0", st)
	}
	evs := c.snapshot()
	if want := []string{"up", "signal", "ready_false", "listener_closed", "drained", "exit"}; !slices.Equal(names(evs), want) {
		t.Fatalf("events %v, want %v", names(evs), want)
	}
	if d := sinceSignal(sig, find(evs, "listener_closed")[0]); d < 500*time.Millisecond {
		t.Errorf("listener closed %v after the signal, before PRESTOP_MS", d)
	}
	if dr := find(evs, "drained")[0]; dr.Ms == nil || *dr.Ms < 700 || *dr.Ms > 3000 {
		t.Errorf("drained ms = %v, want about the in-flight request's remaining 1 s", dr.Ms)
	}
	if code := exitEvent(t, evs); code != 0 {
		t.Errorf("exit event code %d", code)
	}
}

func TestProcessFullDeadline(t *testing.T) {
	t.Parallel()
	c := startChild(t, "MODE=full", "DRAIN_MS=500")
	res := getAsync(client(true), c.base+"/slow?ms=60000")
	c.waitInflight(t, 1)
	sent := c.signal(t, syscall.SIGTERM)
	st := c.waitExit(t, 5*time.Second)
	if el := time.Since(sent); el < 450*time.Millisecond || el > 3*time.Second {
		t.Errorf("exited %v after SIGTERM, want just after DRAIN_MS=500", el)
	}
	if st.ExitCode() != 1 {
		t.Errorf("exit %v, want 1", st)
	}
	evs := c.snapshot()
	d := find(evs, "deadline")
	if len(d) != 1 || *d[0].Inflight != 1 || *d[0].HandlerJobStep != 0 || *d[0].HandlerJobSteps != 0 {
		t.Errorf("deadline events %+v", d)
	}
	if slices.Contains(names(evs), "drained") || exitEvent(t, evs) != 1 {
		t.Errorf("events %v", names(evs))
	}
	if got := <-res; got.err == nil {
		t.Errorf("abandoned request got %d", got.resp.StatusCode)
	}
}

func TestProcessFullJobCommit(t *testing.T) {
	t.Parallel()
	c := startChild(t, "MODE=full", "DRAIN_MS=5000")
	resp, err := client(false).Get(c.base + "/job?steps=5&step_ms=100")
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("job = %v %v", resp, err)
	}
	resp.Body.Close()
	time.Sleep(150 * time.Millisecond)
	c.signal(t, syscall.SIGTERM)
	if st := c.waitExit(t, 5*time.Second); st.ExitCode() != 0 {
		t.Errorf("exit %v, want 0", st)
	}
	want := []string{"step 1/5", "step 2/5", "step 3/5", "step 4/5", "step 5/5", "COMMIT"}
	if got := readLines(t, c.dataDir, HandlerJobFile); !slices.Equal(got, want) {
		t.Errorf("job.log = %q, want %q", got, want)
	}
	n := names(c.snapshot())
	if i, j := slices.Index(n, "job_commit"), slices.Index(n, "drained"); i < 0 || j < i {
		t.Errorf("events %v, want job_commit then drained", n)
	}
}

// Close mode does not await the job: it exits without COMMIT.
func TestProcessCloseAbandonsJob(t *testing.T) {
	t.Parallel()
	c := startChild(t, "MODE=close")
	resp, err := client(false).Get(c.base + "/job?steps=20&step_ms=100")
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("job = %v %v", resp, err)
	}
	resp.Body.Close()
	time.Sleep(150 * time.Millisecond)
	c.signal(t, syscall.SIGTERM)
	if st := c.waitExit(t, 2*time.Second); st.ExitCode() != 0 {
		t.Errorf("exit %v, want 0", st)
	}
	lines := readLines(t, c.dataDir, HandlerJobFile)
	if slices.Contains(lines, "COMMIT") || len(lines) >= 20 {
		t.Errorf("job.log = %q, want a partial job", lines)
	}
	if a := find(c.snapshot(), "job_abandoned"); len(a) != 1 || *a[0].HandlerJobSteps != 20 {
		t.Errorf("job_abandoned %+v", a)
	}
}

// None mode has no handler: a child (not PID 1) is killed by SIGTERM.
func TestProcessNone(t *testing.T) {
	t.Parallel()
	c := startChild(t, "MODE=none")
	c.signal(t, syscall.SIGTERM)
	st := c.waitExit(t, 3*time.Second)
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("process state %v, want terminated by SIGTERM", st)
	}
	if n := names(c.snapshot()); !slices.Equal(n, []string{"up"}) {
		t.Errorf("events %v, want only up", n)
	}
}

func TestProcessBadEnv(t *testing.T) {
	t.Parallel()
	if targetBin == "" {
		t.Skip("needs the binary")
	}
	cmd := exec.Command(targetBin)
	cmd.Env = append(os.Environ(), "LISTEN_HOST=127.0.0.1", "DATA_DIR="+t.TempDir(), "PORT=abc", "SWEEP_MS=0")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 {
		t.Errorf("exit %v (%v), want 2", cmd.ProcessState, err)
	}
	for _, s := range []string{`PORT="abc"`, `SWEEP_MS="0"`} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr %q does not name %s", stderr.String(), s)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing before listening", stdout.String())
	}
}
