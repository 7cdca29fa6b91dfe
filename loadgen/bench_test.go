package loadgen

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/loadgen/internal/benchserver"
	"github.com/shutdownlab/shutdownlab/record"
)

func benchServer(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go benchserver.Serve(ln, 0)
	b.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// BenchmarkRoundTrip is the hot path: one request/response over a
// keep-alive connection to a trivial local server, recorded and encoded as
// JSON to io.Discard.
func BenchmarkRoundTrip(b *testing.B) {
	cfg := Config{Target: benchServer(b), IDPrefix: "bench"}.WithDefaults()
	enc := NewJSONEncoder(io.Discard)
	r := newRunner(cfg, enc)
	defer r.hardCancel()
	c := newClient(r, 0)
	defer c.closeConn()
	var rec record.Request
	e := r.entries[0]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.do(&rec, e, uint64(i+1), 0)
		if rec.Class != record.ClassOK {
			b.Fatalf("request %d: %+v", i, rec)
		}
		r.emit(&rec)
	}
}

// BenchmarkClosedLoop20 is a whole closed-loop run with 20 keep-alive
// connections doing b.N requests; it reports requests per second.
func BenchmarkClosedLoop20(b *testing.B) {
	addr := benchServer(b)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	sum, err := Run(context.Background(), Config{Target: addr, Clients: 20, MaxRequests: b.N, Duration: time.Minute, IDPrefix: "bench"}, NewJSONEncoder(io.Discard))
	el := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	if sum.ByClass[record.ClassOK] != b.N {
		b.Fatalf("summary %+v, want %d ok", sum, b.N)
	}
	b.ReportMetric(float64(b.N)/el.Seconds(), "req/s")
}
