package ws

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The scale benchmark: N connections held against an event
// server in a child process, measured in this process, paired: "minimal"
// is coder/websocket's own minimal client (Dial, then Read in a loop),
// "driver" is ws.Run recording every attempt and close as JSON lines to
// io.Discard. Both ramp their dials the same way. Figures per connection
// are taken with every connection open and idle (after a GC), CPU per
// message over the phase in which the server writes msgs frames to every
// connection. See loadgen/BENCHMARKS.md.
//
// Settings (environment): SHUTDOWNLAB_WSBENCH_CONNS (default 1000),
// _MSGS per connection (10), _INTERVAL_MS between them (100),
// _HEAPPROFILE (a path: the heap profile with every connection open).
//
//	SHUTDOWNLAB_WSBENCH_CONNS=10000 go test ./loadgen/ws -run '^$' \
//	    -bench 'Hold/driver' -benchtime 1x

// benchEnv reads an integer setting of the benchmark (default def).
func benchEnv(b *testing.B, name string, def int) int {
	v := os.Getenv("SHUTDOWNLAB_WSBENCH_" + name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("SHUTDOWNLAB_WSBENCH_%s=%q: want a positive integer", name, v)
	}
	return n
}

func BenchmarkHold(b *testing.B) {
	conns := benchEnv(b, "CONNS", 1000)
	msgs := benchEnv(b, "MSGS", 10)
	interval := time.Duration(benchEnv(b, "INTERVAL_MS", 100)) * time.Millisecond
	if lim := raiseNoFile(); lim < uint64(conns)+256 {
		b.Skipf("open-file limit %d (hard): %d connections need %d; raise the hard limit (ulimit -Hn)",
			lim, conns, conns+256)
	}
	for _, kind := range []string{"minimal", "driver"} {
		b.Run(kind, func(b *testing.B) {
			var sum holdResult
			for range b.N {
				r := hold(b, kind, conns, msgs, interval)
				sum.add(r)
			}
			sum.report(b, b.N)
		})
	}
}

// holdResult is one measurement.
type holdResult struct {
	conns                 int
	heapIdle, rssIdle     float64 // bytes per open, idle connection
	heapAfter             float64 // bytes per connection after the messages
	cpuConnect, cpuPerMsg float64 // ns of CPU per connection opened / per message read
	goroutinesPer         float64 // goroutines per open connection
}

func (r *holdResult) add(o holdResult) {
	r.conns = o.conns
	r.heapIdle += o.heapIdle
	r.rssIdle += o.rssIdle
	r.heapAfter += o.heapAfter
	r.cpuConnect += o.cpuConnect
	r.cpuPerMsg += o.cpuPerMsg
	r.goroutinesPer += o.goroutinesPer
}

func (r holdResult) report(b *testing.B, n int) {
	f := float64(n)
	b.ReportMetric(float64(r.conns), "conns")
	b.ReportMetric(r.heapIdle/f, "heap-B/conn")
	b.ReportMetric(r.rssIdle/f, "rss-B/conn")
	b.ReportMetric(r.heapAfter/f, "heap-after-B/conn")
	b.ReportMetric(r.cpuConnect/f, "cpu-ns/conn")
	b.ReportMetric(r.cpuPerMsg/f, "cpu-ns/msg")
	b.ReportMetric(r.goroutinesPer/f, "goroutines/conn")
	b.ReportMetric(0, "ns/op")
}

// holdClient is one of the two clients under measurement.
type holdClient interface {
	// start dials conns connections to url, spread over ramp.
	start(ctx context.Context, url string, conns int, ramp time.Duration)
	// opened and failed count the dials so far; received the messages
	// read so far (-1 when the client cannot tell before it stops).
	opened() int64
	failed() int64
	received() int64
	// stop closes every connection and returns the messages read.
	stop(b *testing.B) int64
}

// hold makes one measurement of kind with conns connections and msgs
// messages on each, interval apart.
func hold(b *testing.B, kind string, conns, msgs int, interval time.Duration) holdResult {
	b.Helper()
	srv := startBenchServer(b, msgs, interval)
	defer srv.close()
	var c holdClient = &minimalClient{}
	if kind == "driver" {
		c = &driverClient{}
	}
	ramp := time.Duration(conns) * 500 * time.Microsecond // 2000 handshakes a second
	runtime.GC()
	debug.FreeOSMemory()
	heap0, rss0, cpu0, g0 := heapBytes(), rssBytes(b), cpuNs(), runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t0 := time.Now()
	c.start(ctx, "ws://"+srv.addr+"/events", conns, ramp)
	benchWait(b, ramp+2*time.Minute, "every connection open", func() bool {
		return c.opened()+c.failed() >= int64(conns)
	})
	cpu1, connectWall := cpuNs(), time.Since(t0)
	if f := c.failed(); f > 0 {
		b.Fatalf("%s: %d of %d connections failed to open", kind, f, conns)
	}
	runtime.GC()
	r := holdResult{conns: conns, heapIdle: float64(heapBytes()-heap0) / float64(conns),
		rssIdle:       float64(rssBytes(b)-rss0) / float64(conns),
		goroutinesPer: float64(runtime.NumGoroutine()-g0) / float64(conns),
		cpuConnect:    float64(cpu1-cpu0) / float64(conns)}
	b.Logf("%s: %d connections open in %v", kind, conns, connectWall.Round(time.Millisecond))
	if path := os.Getenv("SHUTDOWNLAB_WSBENCH_HEAPPROFILE"); path != "" {
		writeHeapProfile(b, path+"."+kind)
	}
	cpu2 := cpuNs()
	sent := srv.release(b)
	want := int64(conns) * int64(msgs)
	if sent != want {
		b.Fatalf("%s: the server wrote %d frames, want %d", kind, sent, want)
	}
	benchWait(b, time.Minute, "every message read", func() bool {
		n := c.received()
		return n < 0 || n >= want
	})
	// The driver cannot be asked before it stops: both get one more
	// second to read what is in flight (idle CPU is part of both windows).
	time.Sleep(time.Second)
	cpu3 := cpuNs()
	runtime.GC()
	r.heapAfter = float64(heapBytes()-heap0) / float64(conns)
	r.cpuPerMsg = float64(cpu3-cpu2) / float64(want)
	cancel()
	if got := c.stop(b); got != want {
		b.Errorf("%s: %d messages read, want %d", kind, got, want)
	}
	return r
}

// writeHeapProfile writes the heap profile now (every connection open).
func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// benchWait polls cond every 10 ms for at most d.
func benchWait(b *testing.B, d time.Duration, what string, cond func() bool) {
	b.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			b.Fatalf("timed out after %v waiting for %s", d, what)
		}
	}
}

// heapBytes is the heap and goroutine stacks in use.
func heapBytes() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// rssBytes is this process's resident set (VmRSS).
func rssBytes(b *testing.B) int64 {
	s, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(s), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// cpuNs is this process's user + system CPU time so far.
func cpuNs() int64 {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return u.Utime.Nano() + u.Stime.Nano()
}

// benchServerProc is the child process serving the events.
type benchServerProc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	addr  string
	lines chan string
}

func startBenchServer(b *testing.B, msgs int, interval time.Duration) *benchServerProc {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), benchServerEnv+"=1", benchServerEnv+"_MSGS="+strconv.Itoa(msgs),
		benchServerEnv+"_INTERVAL="+interval.String())
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &benchServerProc{cmd: cmd, in: in, out: bufio.NewScanner(out), lines: make(chan string, 4)}
	go func() {
		for p.out.Scan() {
			p.lines <- p.out.Text()
		}
		close(p.lines)
	}()
	l := p.line(b, 10*time.Second)
	if !strings.HasPrefix(l, "addr ") {
		b.Fatalf("bench server said %q, want addr HOST:PORT", l)
	}
	p.addr = strings.TrimPrefix(l, "addr ")
	return p
}

// line waits at most d for the server's next line.
func (p *benchServerProc) line(b *testing.B, d time.Duration) string {
	b.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			b.Fatal("the bench server exited")
		}
		return l
	case <-time.After(d):
		b.Fatalf("no word from the bench server within %v", d)
	}
	return ""
}

// release tells the server to write its frames and returns how many it
// wrote.
func (p *benchServerProc) release(b *testing.B) int64 {
	b.Helper()
	fmt.Fprintln(p.in, "go")
	l := p.line(b, 2*time.Minute)
	n, err := strconv.ParseInt(strings.TrimPrefix(l, "sent "), 10, 64)
	if err != nil {
		b.Fatalf("bench server said %q, want sent N", l)
	}
	return n
}

func (p *benchServerProc) close() {
	_ = p.in.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}
