package targetapp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// events parses every line written so far; a malformed line fails the test.
func (b *syncBuffer) events(t *testing.T) []record.Event {
	t.Helper()
	return parseEvents(t, b.String())
}

func parseEvents(t *testing.T, data string) []record.Event {
	t.Helper()
	var evs []record.Event
	sc := bufio.NewScanner(strings.NewReader(data))
	for sc.Scan() {
		var e record.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("lifecycle line %q: %v", sc.Text(), err)
		}
		if e.TimeNs == 0 || e.Event == "" {
			t.Fatalf("lifecycle line %q lacks ts_ns or event", sc.Text())
		}
		evs = append(evs, e)
	}
	return evs
}

// find returns the events named name.
func find(evs []record.Event, name string) []record.Event {
	var out []record.Event
	for _, e := range evs {
		if e.Event == name {
			out = append(out, e)
		}
	}
	return out
}

// names lists the event names in order.
func names(evs []record.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Event)
	}
	return out
}

// testConfig is a full-mode config with short durations and a temp DATA_DIR.
func testConfig(t *testing.T) Config {
	c := DefaultConfig()
	c.Host = "127.0.0.1"
	c.Port = 0
	c.Sweep = 10 * time.Millisecond
	c.DataDir = t.TempDir()
	return c
}

// newTestApp builds an App that is closed when the test ends.
func newTestApp(t *testing.T, cfg Config) (*App, *syncBuffer) {
	t.Helper()
	out := &syncBuffer{}
	a, err := New(cfg, NewLogger(out, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a, out
}

// serve starts a on a 127.0.0.1 listener and returns its address.
func serve(t *testing.T, a *App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.Serve(ln) }()
	return ln.Addr().String()
}

// readLines reads a DATA_DIR file as lines (none if it does not exist).
func readLines(t *testing.T, dir, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// eventually polls cond every 5 ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func recordEvent(name string) record.Event { return record.Event{Event: name} }
