package loadgen

import (
	"bufio"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// runHostile runs l with a 20 s safety bound and checks that its lines
// account for themselves.
func runHostile(t *testing.T, ctx context.Context, l HostileLoad) (record.Summary, []record.Request) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var col collector
	sum, err := RunHostile(ctx, l, &col)
	if err != nil {
		t.Fatalf("RunHostile: %v", err)
	}
	checkSummary(t, sum, col.reqs)
	if len(col.start) != 1 || len(col.sums) != 1 || col.start[0].LoadStart != sum.LoadStart {
		t.Fatalf("%d start and %d summary lines, want 1 each with the same load start", len(col.start), len(col.sums))
	}
	return sum, col.reqs
}

// Closed loop: two clients abort attempts back to back until the count.
func TestRunHostileClosed(t *testing.T) {
	addr := rawServer(t, func(c net.Conn, br *bufio.Reader, _ int) { io.Copy(io.Discard, br) })
	sum, reqs := runHostile(t, context.Background(), HostileLoad{Clients: 2, MaxAttempts: 6,
		Request: HostileRequest{Kind: record.HostileAbort, Target: addr, BodyBytes: 100, AbortAfter: 1}})
	if sum.Started != 6 || sum.ByClass[record.ClassAborted] != 6 || sum.StoppedBy != record.StoppedByCount {
		t.Errorf("summary %+v, want 6 aborted, stopped by count", sum)
	}
	ids := map[string]bool{}
	for _, r := range reqs {
		ids[r.ID] = true
		if r.Worker < 0 || r.Worker > 1 || r.Conn == 0 {
			t.Errorf("record %+v: want worker 0 or 1 and a connection id", r)
		}
	}
	if len(ids) != 6 {
		t.Errorf("%d distinct ids, want 6", len(ids))
	}
}

// Open loop: slots that find the one client busy are not_sent; the busy
// attempt ends as timeout.
func TestRunHostileOpenNotSent(t *testing.T) {
	addr := rawServer(t, func(c net.Conn, br *bufio.Reader, _ int) { io.Copy(io.Discard, br) })
	sum, reqs := runHostile(t, context.Background(), HostileLoad{Clients: 1, Rate: 100, MaxAttempts: 5,
		Request: HostileRequest{Kind: record.HostileSlowBody, Target: addr, Rate: 1000, BodyBytes: 10, Timeout: 500 * time.Millisecond}})
	if sum.Started != 5 || sum.ByClass[record.ClassTimeout] != 1 || sum.ByClass[record.ClassNotSent] != 4 {
		t.Errorf("summary %+v, want 1 timeout and 4 not_sent", sum)
	}
	for _, r := range reqs {
		if r.Scheduled == 0 || r.Hostile != record.HostileSlowBody {
			t.Errorf("record %+v: want its open-loop slot and hostile slow_body", r)
		}
	}
}

// The caller's context ending cuts an attempt off as timeout, "agent
// stopping", and the summary says signal.
func TestRunHostileStopped(t *testing.T) {
	addr := rawServer(t, func(c net.Conn, br *bufio.Reader, _ int) { io.Copy(io.Discard, br) })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	sum, reqs := runHostile(t, ctx, HostileLoad{Request: HostileRequest{Kind: record.HostileSlowHeaders, Target: addr, Rate: 1}})
	if sum.StoppedBy != record.StoppedBySignal || len(reqs) != 1 || reqs[0].Class != record.ClassTimeout ||
		reqs[0].Error != errStopping.Error() || reqs[0].SentBytes < 1 {
		t.Errorf("summary %+v, records %+v: want one timeout (agent stopping) with bytes sent, stopped by signal", sum, reqs)
	}
}
