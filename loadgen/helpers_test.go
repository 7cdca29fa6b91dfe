package loadgen

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// collector is an Encoder that keeps everything in memory.
type collector struct {
	mu    sync.Mutex
	start []record.Start
	reqs  []record.Request
	sums  []record.Summary
}

func (c *collector) EncodeStart(s *record.Start) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.start = append(c.start, *s)
	return nil
}

func (c *collector) EncodeRequest(r *record.Request) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, *r)
	return nil
}

func (c *collector) EncodeSummary(s *record.Summary) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sums = append(c.sums, *s)
	return nil
}

// run runs cfg with a 20 s safety bound and checks the invariants every run
// must keep: one start, one summary, started == sum(by_class) == records.
func run(t *testing.T, cfg Config) (record.Summary, []record.Request) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if cfg.IDPrefix == "" {
		cfg.IDPrefix = "t"
	}
	var col collector
	sum, err := Run(ctx, cfg, &col)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkSummary(t, sum, col.reqs)
	if len(col.start) != 1 || len(col.sums) != 1 {
		t.Fatalf("got %d start and %d summary lines, want 1 and 1", len(col.start), len(col.sums))
	}
	if col.start[0].LoadStart != sum.LoadStart || col.start[0].Type != "start" {
		t.Errorf("start line %+v does not match summary load start %d", col.start[0], sum.LoadStart)
	}
	for _, r := range col.reqs {
		if r.Start < sum.LoadStart || r.End < r.Start || r.End > sum.LoadEnd {
			t.Errorf("record outside the load window [%d, %d]: %+v", sum.LoadStart, sum.LoadEnd, r)
		}
	}
	return sum, col.reqs
}

func checkSummary(t *testing.T, sum record.Summary, reqs []record.Request) {
	t.Helper()
	total := 0
	for _, n := range sum.ByClass {
		total += n
	}
	if sum.Started != total {
		t.Errorf("summary started=%d but sum(by_class)=%d: %+v", sum.Started, total, sum.ByClass)
	}
	if sum.Started != len(reqs) {
		t.Errorf("summary started=%d but %d request records", sum.Started, len(reqs))
	}
	per := map[record.Class]int{}
	for _, r := range reqs {
		per[r.Class]++
	}
	for _, c := range record.Classes {
		if per[c] != sum.ByClass[c] {
			t.Errorf("class %s: %d records, summary says %d", c, per[c], sum.ByClass[c])
		}
	}
	if sum.Type != "summary" {
		t.Errorf("summary type %q", sum.Type)
	}
}

// classes lists the classes of reqs in order.
func classes(reqs []record.Request) []record.Class {
	out := make([]record.Class, len(reqs))
	for i, r := range reqs {
		out[i] = r.Class
	}
	return out
}

// rawServer listens on loopback and runs handle for every accepted conn.
// handle gets the conn, a reader on it and the conn's index (from 0).
func rawServer(t *testing.T, handle func(c net.Conn, br *bufio.Reader, idx int)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for idx := 0; ; idx++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				handle(c, bufio.NewReader(c), idx)
			}()
		}
	}()
	return ln.Addr().String()
}

// readReq reads one full request from br.
func readReq(br *bufio.Reader) (*http.Request, error) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, err
	}
	_, err = bufio.NewReader(req.Body).WriteTo(discard{})
	return req, err
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
