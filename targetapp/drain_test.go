package targetapp

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// client returns an HTTP client that does not reuse connections unless
// keepAlive, with a bounded timeout.
func client(keepAlive bool) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: !keepAlive}}
}

// bounded is a 5 s context for drains that must finish long before it.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type result struct {
	resp *http.Response
	err  error
}

// getAsync starts a GET and delivers its response (body read and closed).
func getAsync(c *http.Client, url string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		resp, err := c.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		ch <- result{resp, err}
	}()
	return ch
}

func TestDrainWaitsForInflight(t *testing.T) {
	a, out := newTestApp(t, testConfig(t))
	addr := serve(t, a)
	res := getAsync(client(true), "http://"+addr+"/slow?ms=150")
	eventually(t, 2*time.Second, "inflight 1", func() bool { return a.Inflight() == 1 })
	r := a.Drain(bounded(t), time.Now())
	if !r.Drained || r.Elapsed < 100*time.Millisecond || r.Inflight != 0 || r.Conns != 0 {
		t.Errorf("drain = %+v, want drained after the 150 ms request", r)
	}
	got := <-res
	if got.err != nil || got.resp.StatusCode != 200 || !got.resp.Close {
		t.Fatalf("in-flight request = %+v %v, want 200 with Connection: close", got.resp, got.err)
	}
	evs := out.events(t)
	if want := []string{"ready_false", "listener_closed", "drained"}; !slices.Equal(names(evs), want) {
		t.Errorf("events = %v, want %v", names(evs), want)
	}
	if d := find(evs, "drained"); len(d) == 1 && (d[0].Ms == nil || *d[0].Ms < 100) {
		t.Errorf("drained ms = %v", d[0].Ms)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Error("dial succeeded after the listener was closed")
	}
}

// During PRESTOP_MS readiness fails but new connections are still served.
func TestDrainPreStopServes(t *testing.T) {
	cfg := testConfig(t)
	cfg.PreStop = 300 * time.Millisecond
	a, _ := newTestApp(t, cfg)
	addr := serve(t, a)
	done := make(chan DrainResult, 1)
	start := time.Now()
	go func() { done <- a.Drain(bounded(t), start) }()
	eventually(t, time.Second, "ready false", func() bool { return !a.Ready() })
	c := client(false)
	for path, want := range map[string]int{"/readyz": 503, "/livez": 200, "/slow?ms=10": 200} {
		got := <-getAsync(c, "http://"+addr+path)
		if got.err != nil || got.resp.StatusCode != want {
			t.Errorf("GET %s during pre-stop = %v %v, want %d", path, got.resp, got.err, want)
		}
	}
	if time.Since(start) >= cfg.PreStop {
		t.Fatal("probes took longer than the pre-stop wait; test inconclusive")
	}
	r := <-done
	if !r.Drained || r.Elapsed < cfg.PreStop {
		t.Errorf("drain = %+v, want drained after the pre-stop wait", r)
	}
}

// Idle keep-alive connections and connections that never sent a byte are
// closed by the sweep; the drain does not wait for the idle timeout.
func TestDrainSweepsIdleConns(t *testing.T) {
	a, _ := newTestApp(t, testConfig(t)) // KeepAlive 5 s
	addr := serve(t, a)
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	br := bufio.NewReader(idle)
	if _, err := io.WriteString(idle, "GET /livez HTTP/1.1\r\nHost: t\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.Close {
		t.Fatal("response before the drain says Connection: close")
	}
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	eventually(t, time.Second, "2 conns tracked", func() bool { return a.Conns() == 2 })

	r := a.Drain(bounded(t), time.Now())
	if !r.Drained || r.Elapsed > time.Second {
		t.Errorf("drain = %+v, want drained well before the 5 s idle timeout", r)
	}
	for name, c := range map[string]net.Conn{"idle": idle, "silent": silent} {
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		var rd io.Reader = c
		if name == "idle" {
			rd = br
		}
		if n, err := rd.Read(make([]byte, 1)); n != 0 || err == nil || os.IsTimeout(err) {
			t.Errorf("%s conn: read %d, %v; want closed by the server", name, n, err)
		}
	}
}

func TestDrainAwaitsJob(t *testing.T) {
	a, out := newTestApp(t, testConfig(t))
	if err := a.StartJob(3, 40*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	r := a.Drain(bounded(t), time.Now())
	if !r.Drained || r.JobRunning || r.JobStep != 3 || r.Elapsed < 100*time.Millisecond {
		t.Errorf("drain = %+v, want drained after the job", r)
	}
	if got := readLines(t, a.cfg.DataDir, HandlerJobFile); !slices.Equal(got, []string{"step 1/3", "step 2/3", "step 3/3", "COMMIT"}) {
		t.Errorf("job.log = %q", got)
	}
	n := names(out.events(t))
	if slices.Index(n, "job_commit") > slices.Index(n, "drained") || slices.Index(n, "job_commit") < 0 {
		t.Errorf("events = %v, want job_commit before drained", n)
	}
}

func TestDrainDeadline(t *testing.T) {
	a, out := newTestApp(t, testConfig(t))
	addr := serve(t, a)
	res := getAsync(client(true), "http://"+addr+"/slow?ms=60000")
	if err := a.StartJob(100, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	eventually(t, 2*time.Second, "inflight 1", func() bool { return a.Inflight() == 1 })
	// Wait for the job's first step instead of assuming one fits in the
	// deadline: on a loaded machine (the suite's Docker tests beside it)
	// the first fsync'd step took longer than 150 ms.
	eventually(t, 5*time.Second, "job step 1", func() bool { _, step, _ := a.JobStatus(); return step >= 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	r := a.Drain(ctx, time.Now())
	if r.Drained || r.Inflight != 1 || !r.JobRunning || r.JobSteps != 100 || r.JobStep < 1 || r.JobStep >= 100 {
		t.Errorf("drain = %+v, want deadline with 1 in flight and a partial job", r)
	}
	if r.Elapsed < 150*time.Millisecond || r.Elapsed > 2*time.Second {
		t.Errorf("deadline after %v, want ~150ms", r.Elapsed)
	}
	evs := out.events(t)
	d := find(evs, "deadline")
	if len(d) != 1 || *d[0].Inflight != 1 || *d[0].HandlerJobSteps != 100 || *d[0].HandlerJobStep != r.JobStep || d[0].Ms == nil {
		t.Errorf("deadline events = %+v", d)
	}
	if len(find(evs, "job_abandoned")) != 1 || len(find(evs, "drained")) != 0 {
		t.Errorf("events = %v", names(evs))
	}
	_ = a.Close()
	if got := <-res; got.err == nil {
		t.Errorf("stuck request got %d after Close", got.resp.StatusCode)
	}
	if slices.Contains(readLines(t, a.cfg.DataDir, HandlerJobFile), "COMMIT") {
		t.Error("abandoned job committed")
	}
}

// runAsync runs Run with a fake signal channel.
func runAsync(t *testing.T, a *App) (sigs chan os.Signal, code <-chan int, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sigs = make(chan os.Signal, 4)
	c := make(chan int, 1)
	go func() { c <- Run(a, ln, sigs) }()
	return sigs, c, ln.Addr().String()
}

func waitCode(t *testing.T, code <-chan int, within time.Duration) int {
	t.Helper()
	select {
	case c := <-code:
		return c
	case <-time.After(within):
		t.Fatalf("Run did not return within %v", within)
		return -1
	}
}

// A second signal during the drain is logged and ignored.
func TestRunFullSecondSignal(t *testing.T) {
	cfg := testConfig(t)
	cfg.PreStop = 100 * time.Millisecond
	a, out := newTestApp(t, cfg)
	sigs, code, _ := runAsync(t, a)
	sigs <- syscall.SIGTERM
	eventually(t, time.Second, "ready false", func() bool { return !a.Ready() })
	sigs <- syscall.SIGINT
	if c := waitCode(t, code, 3*time.Second); c != 0 {
		t.Errorf("exit code %d", c)
	}
	evs := out.events(t)
	want := []string{"up", "signal", "ready_false", "signal", "listener_closed", "drained", "exit"}
	if !slices.Equal(names(evs), want) {
		t.Fatalf("events = %v, want %v", names(evs), want)
	}
	if evs[0].Mode != "full" || !strings.Contains(evs[0].Msg, "host=127.0.0.1 port=") {
		t.Errorf("up = %+v", evs[0])
	}
	if evs[1].Signal != "SIGTERM" || evs[1].Msg != "" || evs[3].Signal != "SIGINT" || evs[3].Msg != "ignored: already draining" {
		t.Errorf("signals = %+v, %+v", evs[1], evs[3])
	}
	if e := evs[6]; e.Code == nil || *e.Code != 0 {
		t.Errorf("exit = %+v", e)
	}
}

func TestRunFullDeadline(t *testing.T) {
	cfg := testConfig(t)
	cfg.Drain = 100 * time.Millisecond
	a, out := newTestApp(t, cfg)
	sigs, code, addr := runAsync(t, a)
	_ = getAsync(client(true), "http://"+addr+"/slow?ms=60000")
	eventually(t, 2*time.Second, "inflight 1", func() bool { return a.Inflight() == 1 })
	sigs <- syscall.SIGTERM
	if c := waitCode(t, code, 3*time.Second); c != 1 {
		t.Errorf("exit code %d, want 1", c)
	}
	evs := out.events(t)
	if d := find(evs, "deadline"); len(d) != 1 || *d[0].Inflight != 1 || *d[0].HandlerJobStep != 0 || *d[0].HandlerJobSteps != 0 {
		t.Errorf("deadline = %+v", d)
	}
	if e := evs[len(evs)-1]; e.Event != "exit" || *e.Code != 1 {
		t.Errorf("last event = %+v", e)
	}
}

// Close mode: stock Shutdown finishes the in-flight request, does not flip
// readiness, does not await the job.
func TestRunClose(t *testing.T) {
	cfg := testConfig(t)
	cfg.Mode = ModeClose
	a, out := newTestApp(t, cfg)
	sigs, code, addr := runAsync(t, a)
	res := getAsync(client(true), "http://"+addr+"/slow?ms=200")
	if err := a.StartJob(100, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	eventually(t, 2*time.Second, "inflight 1", func() bool { return a.Inflight() == 1 })
	sigs <- syscall.SIGTERM
	sigs <- syscall.SIGTERM
	if c := waitCode(t, code, 3*time.Second); c != 0 {
		t.Errorf("exit code %d", c)
	}
	got := <-res
	if got.err != nil || got.resp.StatusCode != 200 {
		t.Fatalf("in-flight request = %v %v", got.resp, got.err)
	}
	// Go's stock Shutdown already answers Connection: close (a finding).
	if !got.resp.Close {
		t.Error("response during stock Shutdown lacks Connection: close")
	}
	if !a.Ready() {
		t.Error("close mode flipped readiness")
	}
	evs := out.events(t)
	n := names(evs)
	for _, w := range []string{"up", "signal", "listener_closed", "shutdown_returned", "job_abandoned", "exit"} {
		if !slices.Contains(n, w) {
			t.Errorf("events %v lack %s", n, w)
		}
	}
	if slices.Contains(n, "ready_false") || slices.Contains(n, "drained") {
		t.Errorf("close mode logged drain steps: %v", n)
	}
	if s := find(evs, "shutdown_returned"); len(s) == 1 && *s[0].Ms < 100 {
		t.Errorf("shutdown_returned after %v ms, want after the in-flight request", *s[0].Ms)
	}
}

// None mode: Run ignores any signal channel it is given.
func TestRunNoneIgnoresSignals(t *testing.T) {
	cfg := testConfig(t)
	cfg.Mode = ModeNone
	a, out := newTestApp(t, cfg)
	sigs, code, addr := runAsync(t, a)
	sigs <- syscall.SIGTERM
	time.Sleep(50 * time.Millisecond)
	if got := <-getAsync(client(false), "http://"+addr+"/readyz"); got.err != nil || got.resp.StatusCode != 200 {
		t.Errorf("readyz after signal = %v %v", got.resp, got.err)
	}
	_ = a.Close()
	waitCode(t, code, 3*time.Second)
	if n := names(out.events(t)); slices.Contains(n, "signal") || n[0] != "up" {
		t.Errorf("events = %v", n)
	}
}

// KEEPALIVE_MS is the idle timeout of keep-alive connections.
func TestKeepAliveTimeout(t *testing.T) {
	cfg := testConfig(t)
	cfg.KeepAlive = 50 * time.Millisecond
	a, _ := newTestApp(t, cfg)
	addr := serve(t, a)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	if _, err := io.WriteString(conn, "GET /livez HTTP/1.1\r\nHost: t\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.Close {
		t.Fatalf("response %v %v, want keep-alive", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	if _, err := br.ReadByte(); err == nil || os.IsTimeout(err) {
		t.Fatalf("idle conn: %v, want closed by the server", err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("idle conn closed after %v, want about 50 ms", el)
	}
}

// Durations come from the injected clock.
func TestDrainClock(t *testing.T) {
	cfg := testConfig(t)
	at := time.Unix(1800000000, 0)
	out := &syncBuffer{}
	a, err := New(cfg, NewLogger(out, func() time.Time { return at }), WithClock(func() time.Time { return at }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	r := a.Drain(bounded(t), at.Add(-1234*time.Millisecond))
	if !r.Drained || r.Elapsed != 1234*time.Millisecond {
		t.Errorf("drain = %+v, want 1234 ms by the injected clock", r)
	}
	d := find(out.events(t), "drained")
	if len(d) != 1 || *d[0].Ms != 1234 || d[0].TimeNs != at.UnixNano() {
		t.Errorf("drained = %+v", d)
	}
}
