package ws

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/record"
)

// The scale benchmark's server runs in a child process (this test binary
// re-executed with benchServerEnv set), so that the benchmark process's
// memory and CPU are the client's alone, and each process needs only one
// file descriptor per connection.

// benchServerEnv, when set in the environment, makes the test binary the
// benchmark's event server instead of running tests.
const benchServerEnv = "SHUTDOWNLAB_WSBENCH_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(benchServerEnv) != "" {
		os.Exit(benchServerMain())
	}
	os.Exit(m.Run())
}

// benchServerConfig is what the parent asks of the server.
type benchServerConfig struct {
	msgs     int           // event frames per connection, once the parent says go
	interval time.Duration // between one connection's frames
}

// benchServerMain serves /events on 127.0.0.1 and talks to its parent
// over stdin/stdout: it prints "addr HOST:PORT"; on the line "go" every
// connection open then gets msgs event frames, interval apart (each with
// its own random phase), and it prints "sent N" when all are written; it
// exits when stdin ends (the parent is done or gone).
func benchServerMain() int {
	raiseNoFile()
	msgs, err1 := strconv.Atoi(os.Getenv(benchServerEnv + "_MSGS"))
	iv, err2 := time.ParseDuration(os.Getenv(benchServerEnv + "_INTERVAL"))
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "bench server: bad _MSGS or _INTERVAL:", err1, err2)
		return 2
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench server:", err)
		return 1
	}
	s := &benchServer{cfg: benchServerConfig{msgs: msgs, interval: iv}, start: make(chan struct{})}
	go func() { _ = http.Serve(ln, s) }()
	fmt.Printf("addr %s\n", ln.Addr())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() == "go" {
			go s.release()
		}
	}
	return 0
}

// benchServer holds every stream until "go", then writes its frames.
type benchServer struct {
	cfg   benchServerConfig
	start chan struct{}
	mu    sync.Mutex
	conns sync.WaitGroup // streams not done writing
	open  atomic.Int64
	sent  atomic.Int64
}

// release lets every stream write, then reports the frames written once
// the streams open at "go" are done.
func (s *benchServer) release() {
	s.mu.Lock()
	close(s.start)
	s.mu.Unlock()
	s.conns.Wait()
	fmt.Printf("sent %d\n", s.sent.Load())
}

func (s *benchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	s.mu.Lock()
	select {
	case <-s.start:
		s.mu.Unlock()
		return // late: not part of this measurement
	default:
	}
	s.conns.Add(1)
	s.mu.Unlock()
	s.open.Add(1)
	ctx := c.CloseRead(context.Background()) // answers the client's close
	s.write(ctx, c)
	<-ctx.Done()
}

// write sends the stream's frames once released.
func (s *benchServer) write(ctx context.Context, c *websocket.Conn) {
	defer s.conns.Done()
	select {
	case <-s.start:
	case <-ctx.Done():
		return
	}
	phase := time.Duration(time.Now().UnixNano() % int64(s.cfg.interval+1))
	t := time.NewTimer(phase)
	defer t.Stop()
	for seq := int64(1); seq <= int64(s.cfg.msgs); seq++ {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
		b, _ := json.Marshal(record.WSFrame{Type: record.WSFrameEvent, ID: "ev-" + strconv.FormatInt(seq, 10),
			Seq: seq, TimeNs: time.Now().UnixNano()})
		if c.Write(ctx, websocket.MessageText, b) != nil {
			return
		}
		s.sent.Add(1)
		t.Reset(s.cfg.interval)
	}
}

// raiseNoFile raises this process's open-file limit to its hard limit
// and returns the soft limit in force.
func raiseNoFile() uint64 {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return 0
	}
	l.Cur = l.Max
	_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l)
	return l.Cur
}
