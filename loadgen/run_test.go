package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

func okServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// A server that stalls for 1 s under a 100 req/s open-loop schedule: the
// stall must show up as not_sent slots or late starts, and every slot of the
// schedule must be accounted.
func TestOpenLoopShowsStall(t *testing.T) {
	var mu sync.Mutex
	var stallFrom, stallTo time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if stallFrom.IsZero() {
			stallFrom = time.Now().Add(300 * time.Millisecond)
			stallTo = stallFrom.Add(time.Second)
		}
		now, to, from := time.Now(), stallTo, stallFrom
		mu.Unlock()
		if now.After(from) && now.Before(to) {
			time.Sleep(time.Until(to))
		}
	}))
	defer srv.Close()
	sum, reqs := run(t, Config{Target: srv.Listener.Addr().String(), Shape: ShapeOpen, Rate: 100, Workers: 5,
		Duration: 2 * time.Second, MaxLateness: 200 * time.Millisecond, Timeout: 5 * time.Second})
	if sum.Started != 200 || sum.StoppedBy != StoppedByDuration {
		t.Fatalf("summary %+v: want all 200 slots of a 2 s schedule at 100/s accounted, stopped by duration", sum)
	}
	late, notSent := 0, 0
	for _, r := range reqs {
		if r.Scheduled == 0 {
			t.Fatalf("open-loop record without scheduled_ns: %+v", r)
		}
		switch {
		case r.Class == record.ClassNotSent:
			notSent++
		case r.Start-r.Scheduled > int64(150*time.Millisecond):
			late++
		}
	}
	t.Logf("not_sent=%d late(>150ms)=%d by class %v", notSent, late, sum.ByClass)
	if notSent+late < 50 {
		t.Errorf("a 1 s stall at 100/s shows only %d not_sent + %d late slots, want >= 50", notSent, late)
	}
	if notSent == 0 {
		t.Errorf("with max lateness 200ms a 1 s stall must produce not_sent slots")
	}
}

// An open loop with a fast server keeps its schedule.
func TestOpenLoopOnSchedule(t *testing.T) {
	sum, reqs := run(t, Config{Target: okServer(t), Shape: ShapeOpen, Rate: 200, Workers: 4, Duration: 500 * time.Millisecond})
	if sum.Started != 100 || sum.ByClass[record.ClassOK] != 100 {
		t.Fatalf("summary %+v, want 100 ok", sum)
	}
	for i, r := range reqs {
		if late := r.Start - r.Scheduled; late > int64(100*time.Millisecond) {
			t.Errorf("request %d started %v late against an idle server", i, time.Duration(late))
		}
	}
}

// The count bound ends the run with exactly MaxRequests requests.
func TestClosedLoopCountBound(t *testing.T) {
	sum, _ := run(t, Config{Target: okServer(t), Clients: 4, MaxRequests: 50})
	if sum.Started != 50 || sum.ByClass[record.ClassOK] != 50 || sum.StoppedBy != StoppedByCount {
		t.Fatalf("summary %+v, want 50 ok stopped by count", sum)
	}
}

// The duration bound ends the run on time.
func TestClosedLoopDurationBound(t *testing.T) {
	start := time.Now()
	sum, _ := run(t, Config{Target: okServer(t), Clients: 2, Duration: 300 * time.Millisecond, Think: 10 * time.Millisecond})
	el := time.Since(start)
	if sum.StoppedBy != StoppedByDuration || el < 300*time.Millisecond || el > time.Second {
		t.Fatalf("stopped by %q after %v, want duration after ~300ms", sum.StoppedBy, el)
	}
	if sum.Started < 10 || sum.Started > 100 {
		t.Errorf("started %d in 300ms with 2 clients and 10ms think", sum.Started)
	}
}

// Cancelling the context stops the load; requests still in flight after
// the drain bound are timeout "agent stopping".
func TestCancelDrainsThenCutsOff(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	var col collector
	start := time.Now()
	sum, err := Run(ctx, Config{Target: srv.Listener.Addr().String(), Clients: 3, Drain: 200 * time.Millisecond}, &col)
	if err != nil {
		t.Fatal(err)
	}
	checkSummary(t, sum, col.reqs)
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("run took %v after cancel at 200ms with 200ms drain", el)
	}
	if sum.StoppedBy != StoppedBySignal || sum.ByClass[record.ClassTimeout] != 3 || sum.Started != 3 {
		t.Fatalf("summary %+v, want 3 timeouts stopped by signal", sum)
	}
	for _, r := range col.reqs {
		if r.Error != "agent stopping" {
			t.Errorf("cut-off request error %q, want \"agent stopping\"", r.Error)
		}
	}
}

// In-flight requests that finish within the drain bound end normally.
func TestCancelLetsInFlightFinish(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(300 * time.Millisecond) }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	var col collector
	sum, err := Run(ctx, Config{Target: srv.Listener.Addr().String(), Clients: 2, Drain: 2 * time.Second}, &col)
	if err != nil {
		t.Fatal(err)
	}
	checkSummary(t, sum, col.reqs)
	if sum.Started != 2 || sum.ByClass[record.ClassOK] != 2 {
		t.Fatalf("summary %+v, want the 2 in-flight requests ok", sum)
	}
}

// The JSON output: start first, summary last, one req line per started
// request, unique ids of the form <prefix>-<seq>, and the ids on the wire.
func TestJSONOutputAndIDs(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	var bodies atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("X-Request-Id")]++
		mu.Unlock()
		if r.Method == "POST" && r.ContentLength == 64 {
			bodies.Add(1)
		}
	}))
	defer srv.Close()
	var out bytes.Buffer
	mix, _ := ParseMix("GET /a 1; POST /w 1 64")
	sum, err := Run(context.Background(), Config{Target: srv.Listener.Addr().String(), Clients: 3, MaxRequests: 60, IDPrefix: "ag1", Mix: mix}, NewJSONEncoder(&out))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 62 {
		t.Fatalf("%d lines, want start + 60 + summary", len(lines))
	}
	var st record.Start
	var last record.Summary
	if err := json.Unmarshal([]byte(lines[0]), &st); err != nil || st.Type != "start" || st.LoadStart != sum.LoadStart {
		t.Fatalf("first line %s: want the start line (%v)", lines[0], err)
	}
	if err := json.Unmarshal([]byte(lines[61]), &last); err != nil || last.Type != "summary" || last.Started != 60 {
		t.Fatalf("last line %s: want the summary (%v)", lines[61], err)
	}
	var reqs []record.Request
	ids := map[string]bool{}
	for _, l := range lines[1:61] {
		var r record.Request
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Type != "req" {
			t.Fatalf("line %s: %v", l, err)
		}
		if ids[r.ID] || seen[r.ID] != 1 {
			t.Errorf("id %s: duplicate or not seen exactly once by the server (%d)", r.ID, seen[r.ID])
		}
		ids[r.ID] = true
		n, err := strconv.Atoi(strings.TrimPrefix(r.ID, "ag1-"))
		if !strings.HasPrefix(r.ID, "ag1-") || err != nil || n < 1 || n > 60 {
			t.Errorf("id %q, want ag1-<1..60>", r.ID)
		}
		reqs = append(reqs, r)
	}
	checkSummary(t, last, reqs)
	posts := 0
	for _, r := range reqs {
		if r.Method == "POST" {
			posts++
		}
	}
	if int(bodies.Load()) != posts {
		t.Errorf("server got %d POST bodies of 64 bytes, client sent %d POSTs", bodies.Load(), posts)
	}
}

// The mix is respected by weight, and picks are deterministic per seed.
func TestMixWeights(t *testing.T) {
	mix, err := ParseMix("GET /a 3; GET /b 1")
	if err != nil {
		t.Fatal(err)
	}
	_, reqs := run(t, Config{Target: okServer(t), Clients: 2, MaxRequests: 2000, Mix: mix, Seed: 7})
	a := 0
	for _, r := range reqs {
		if r.Path == "/a" {
			a++
		}
	}
	if f := float64(a) / float64(len(reqs)); f < 0.71 || f > 0.79 {
		t.Errorf("share of /a %.3f, want ~0.75", f)
	}
	r1 := &runner{cfg: Config{Seed: 7}}
	r2 := &runner{cfg: Config{Seed: 7}}
	for _, e := range mix {
		for _, r := range []*runner{r1, r2} {
			r.entries = append(r.entries, prepare(e, "h"))
			r.total += e.Weight
			r.cum = append(r.cum, r.total)
		}
	}
	g1, g2 := r1.rng(0), r2.rng(0)
	for i := 0; i < 100; i++ {
		if r1.pick(g1) != r1.entries[indexOf(r2, r2.pick(g2))] {
			t.Fatalf("pick %d differs between two runners with the same seed", i)
		}
	}
}

func indexOf(r *runner, e *preparedEntry) int {
	for i, x := range r.entries {
		if x == e {
			return i
		}
	}
	return -1
}

// failingEncoder fails on the n-th request record.
type failingEncoder struct {
	collector
	n atomic.Int64
}

func (f *failingEncoder) EncodeRequest(r *record.Request) error {
	if f.n.Add(1) == 5 {
		return errors.New("disk full")
	}
	return f.collector.EncodeRequest(r)
}

// An encoder error stops the run early and is returned; the summary still
// accounts every request.
func TestEncoderErrorStopsRun(t *testing.T) {
	var enc failingEncoder
	start := time.Now()
	sum, err := Run(context.Background(), Config{Target: okServer(t), Clients: 2, Duration: 5 * time.Second}, &enc)
	if err == nil || err.Error() != "disk full" {
		t.Fatalf("Run error %v, want disk full", err)
	}
	if time.Since(start) > 2*time.Second || sum.StoppedBy != StoppedBySignal || len(enc.sums) != 1 {
		t.Errorf("summary %+v after %v: want an early stop with a summary", sum, time.Since(start))
	}
	total := 0
	for _, n := range sum.ByClass {
		total += n
	}
	if total != sum.Started || sum.Started != len(enc.reqs)+1 {
		t.Errorf("started %d, sum %d, %d records written + 1 failed", sum.Started, total, len(enc.reqs))
	}
}

// A one-off request goes out at its offset, on its own connection, and is
// counted like any other; one due after the load stopped is not_sent.
func TestOnceRequests(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]time.Time{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		seen[req.URL.Path] = time.Now()
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	once, err := ParseOnce("GET /job?steps=1 @200ms; GET /late @5s")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	sum, reqs := run(t, Config{Target: addr, Clients: 1, Duration: 500 * time.Millisecond, Think: 50 * time.Millisecond, Once: once})
	var job, late *record.Request
	for i := range reqs {
		switch reqs[i].Path {
		case "/job?steps=1":
			job = &reqs[i]
		case "/late":
			late = &reqs[i]
		}
	}
	if job == nil || job.Class != record.ClassOK || job.Status != 202 {
		t.Fatalf("job record %+v, want ok 202", job)
	}
	if off := time.Unix(0, job.Start).Sub(start); off < 200*time.Millisecond || off > 400*time.Millisecond {
		t.Errorf("job sent %s after start, want ~200ms", off)
	}
	if late == nil || late.Class != record.ClassNotSent {
		t.Errorf("late record %+v, want not_sent", late)
	}
	if sum.Started != len(reqs) {
		t.Errorf("started %d, records %d", sum.Started, len(reqs))
	}
}

func TestParseOnceErrors(t *testing.T) {
	for _, s := range []string{
		"GET /job",       // no offset
		"GET /job 0s",    // offset without @
		"GET /job @soon", // bad duration
		"GET /job @-1s",  // negative
		"GET job @1s",    // path without /
		"GET /a @1s @2s", // too many fields
	} {
		if _, err := ParseOnce(s); err == nil {
			t.Errorf("ParseOnce(%q) accepted", s)
		}
	}
}
