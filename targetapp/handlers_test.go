package targetapp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// do runs one request through the App's handler.
func do(a *App, method, target string, hdr map[string]string, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	return rec
}

func decode(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q: %v", rec.Body.String(), err)
	}
	return m
}

func TestReadyzLivez(t *testing.T) {
	a, out := newTestApp(t, testConfig(t))
	rec := do(a, "GET", "/readyz", nil, "")
	if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != `{"inflight":0,"ready":true}` {
		t.Errorf("readyz = %d %q", rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	if !a.BeginDrain() || a.BeginDrain() {
		t.Error("BeginDrain should report true once, then false")
	}
	rec = do(a, "GET", "/readyz", nil, "")
	if m := decode(t, rec); rec.Code != 503 || m["ready"] != false {
		t.Errorf("draining readyz = %d %v", rec.Code, m)
	}
	if rec = do(a, "GET", "/livez", nil, ""); rec.Code != 200 {
		t.Errorf("draining livez = %d", rec.Code)
	}
	if n := len(find(out.events(t), "ready_false")); n != 1 {
		t.Errorf("%d ready_false events, want 1", n)
	}
}

func TestSlow(t *testing.T) {
	a, _ := newTestApp(t, testConfig(t))
	start := time.Now()
	rec := do(a, "GET", "/slow?ms=30", nil, "")
	if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != `{"ok":true}` {
		t.Errorf("slow = %d %q", rec.Code, rec.Body.String())
	}
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Errorf("slow?ms=30 answered after %v", el)
	}
	if rec := do(a, "POST", "/slow", nil, ""); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /slow = %d, want 405", rec.Code)
	}
}

func TestBadQuery(t *testing.T) {
	a, _ := newTestApp(t, testConfig(t))
	id := map[string]string{"X-Request-Id": "r1"}
	for _, tc := range []struct{ method, target, want string }{
		{"GET", "/slow?ms=abc", `bad ms=\"abc\"`},
		{"GET", "/slow?ms=-5", `bad ms=\"-5\"`},
		{"GET", "/slow?ms=", `bad ms=\"\"`},
		{"POST", "/write?ms=1e3", `bad ms=\"1e3\"`},
		{"GET", "/job?steps=0", `bad steps=\"0\"`},
		{"GET", "/job?steps=x&step_ms=1", `bad steps=\"x\"`},
		{"GET", "/job?steps=2&step_ms=fast", `bad step_ms=\"fast\"`},
	} {
		rec := do(a, tc.method, tc.target, id, "")
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s %s = %d %q, want 400 containing %s", tc.method, tc.target, rec.Code, rec.Body.String(), tc.want)
		}
	}
	if got := readLines(t, a.cfg.DataDir, LedgerFile); len(got) != 0 {
		t.Errorf("rejected writes reached the ledger: %q", got)
	}
	if got := readLines(t, a.cfg.DataDir, HandlerJobFile); len(got) != 0 {
		t.Errorf("rejected jobs wrote: %q", got)
	}
}

func TestWriteLedger(t *testing.T) {
	a, _ := newTestApp(t, testConfig(t))
	if rec := do(a, "POST", "/write?ms=0", nil, "x"); rec.Code != 400 || !strings.Contains(rec.Body.String(), "X-Request-Id") {
		t.Errorf("write without id = %d %q", rec.Code, rec.Body.String())
	}
	if rec := do(a, "GET", "/write", map[string]string{"X-Request-Id": "g"}, ""); rec.Code != 405 {
		t.Errorf("GET /write = %d, want 405", rec.Code)
	}
	for _, id := range []string{"a-1", "b-2"} {
		rec := do(a, "POST", "/write?ms=0", map[string]string{"X-Request-Id": id}, strings.Repeat("z", 10000))
		if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != `{"ok":true}` {
			t.Errorf("write %s = %d %q", id, rec.Code, rec.Body.String())
		}
	}
	if got := readLines(t, a.cfg.DataDir, LedgerFile); !slices.Equal(got, []string{"a-1", "b-2"}) {
		t.Errorf("ledger = %q", got)
	}
}

// The ledger line is on disk before the work starts, while the request is
// still in flight.
func TestWriteLedgerBeforeWork(t *testing.T) {
	a, _ := newTestApp(t, testConfig(t))
	done := make(chan int)
	go func() {
		done <- do(a, "POST", "/write?ms=300", map[string]string{"X-Request-Id": "early"}, "").Code
	}()
	eventually(t, 2*time.Second, "ledger line", func() bool {
		return slices.Equal(readLines(t, a.cfg.DataDir, LedgerFile), []string{"early"})
	})
	if n := a.Inflight(); n != 1 {
		t.Errorf("inflight = %d while /write works, want 1", n)
	}
	select {
	case c := <-done:
		t.Fatalf("write answered %d before its work was done", c)
	default:
	}
	if c := <-done; c != 200 {
		t.Errorf("write = %d", c)
	}
}

// Concurrent appends are serialized: every id on its own line.
func TestWriteConcurrent(t *testing.T) {
	a, _ := newTestApp(t, testConfig(t))
	var wg sync.WaitGroup
	var want []string
	for i := range 40 {
		id := fmt.Sprintf("req-%02d", i)
		want = append(want, id)
		wg.Go(func() { do(a, "POST", "/write?ms=0", map[string]string{"X-Request-Id": id}, "") })
	}
	wg.Wait()
	got := readLines(t, a.cfg.DataDir, LedgerFile)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("ledger = %q", got)
	}
}

// Only /slow and /write count as in flight.
func TestInflightCount(t *testing.T) {
	a, _ := newTestApp(t, testConfig(t))
	done := make(chan struct{})
	go func() { do(a, "GET", "/slow?ms=200", nil, ""); close(done) }()
	eventually(t, 2*time.Second, "inflight 1", func() bool { return a.Inflight() == 1 })
	if m := decode(t, do(a, "GET", "/readyz", nil, "")); m["inflight"] != float64(1) {
		t.Errorf("readyz inflight = %v, want 1", m["inflight"])
	}
	if rec := do(a, "GET", "/job?steps=1&step_ms=50", nil, ""); rec.Code != 202 {
		t.Errorf("job = %d", rec.Code)
	}
	if n := a.Inflight(); n != 1 {
		t.Errorf("inflight = %d after /job, want 1", n)
	}
	<-done
	if n := a.Inflight(); n != 0 {
		t.Errorf("inflight = %d after /slow returned", n)
	}
}

func TestJob(t *testing.T) {
	a, out := newTestApp(t, testConfig(t))
	rec := do(a, "GET", "/job?steps=3&step_ms=20", nil, "")
	if m := decode(t, rec); rec.Code != 202 || m["steps"] != float64(3) || m["step_ms"] != float64(20) {
		t.Fatalf("job = %d %v", rec.Code, m)
	}
	if rec := do(a, "GET", "/job?steps=1&step_ms=1", nil, ""); rec.Code != 409 {
		t.Errorf("second job while running = %d, want 409", rec.Code)
	}
	eventually(t, 2*time.Second, "job done", func() bool { r, _, _ := a.JobStatus(); return !r })
	want := []string{"step 1/3", "step 2/3", "step 3/3", "COMMIT"}
	if got := readLines(t, a.cfg.DataDir, HandlerJobFile); !slices.Equal(got, want) {
		t.Errorf("job.log = %q, want %q", got, want)
	}
	if _, step, steps := a.JobStatus(); step != 3 || steps != 3 {
		t.Errorf("JobStatus = %d/%d", step, steps)
	}
	evs := out.events(t)
	if !slices.Equal(names(evs), []string{"job_start", "job_commit"}) {
		t.Errorf("events = %v", names(evs))
	}
	if c := find(evs, "job_commit"); len(c) == 1 && (*c[0].HandlerJobStep != 3 || *c[0].HandlerJobSteps != 3) {
		t.Errorf("job_commit = %+v", c[0])
	}
	// A finished job frees the slot; the next one appends.
	if rec := do(a, "GET", "/job?steps=1&step_ms=0", nil, ""); rec.Code != 202 {
		t.Errorf("job after commit = %d", rec.Code)
	}
	eventually(t, 2*time.Second, "second job", func() bool { return len(readLines(t, a.cfg.DataDir, HandlerJobFile)) == 6 })
}

func TestLoggerClock(t *testing.T) {
	var out syncBuffer
	at := time.Unix(1700000000, 42)
	NewLogger(&out, func() time.Time { return at }).Log(recordEvent("up"))
	evs := out.events(t)
	if len(evs) != 1 || evs[0].TimeNs != at.UnixNano() || evs[0].Event != "up" {
		t.Errorf("events = %+v", evs)
	}
}
