package loadgen

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// hostile makes one attempt with a 20 s safety bound.
func hostile(t *testing.T, h HostileRequest) record.Request {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rec, err := Hostile(ctx, h, "h-1", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Type != record.TypeRequest || rec.ID != "h-1" || rec.Hostile != h.Kind || rec.End < rec.Start || !rec.Class.Known() {
		t.Errorf("record %+v: want type req, id h-1, hostile %s, a known class", rec, h.Kind)
	}
	return rec
}

// countingConn counts the reads that returned data.
type countingConn struct {
	net.Conn
	reads int
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.reads++
	}
	return n, err
}

const ok200 = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\n{\"ok\":true}\n"

func TestHostileConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		h    HostileRequest
		want string
	}{
		{HostileRequest{Kind: "slow", Target: "x:1"}, `hostile kind "slow"`},
		{HostileRequest{Kind: record.HostileSlowHeaders}, "target"},
		{HostileRequest{Kind: record.HostileSlowHeaders, Target: "x:1"}, "rate=0"},
		{HostileRequest{Kind: record.HostileSlowBody, Target: "x:1", Rate: 1, BodyBytes: -1}, "body_bytes=-1"},
		{HostileRequest{Kind: record.HostileAbort, Target: "x:1", BodyBytes: 10, AbortAfter: 10}, "abort_after=10: must be in 0..9"},
		{HostileRequest{Kind: record.HostileAbort, Target: "x:1", Hold: -1}, "must be >= 0"},
	} {
		if _, err := Hostile(context.Background(), tt.h, "h-1", 0, 1); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.h, err, tt.want)
		}
	}
	if _, err := RunHostile(context.Background(), HostileLoad{Request: HostileRequest{Kind: record.HostileAbort, Target: "x:1"}, Rate: -1}, &collector{}); err == nil {
		t.Error("RunHostile with rate -1: no error")
	}
}

// The headers go out in many writes at the set rate; the server answers
// once they are complete: ok, every byte sent.
func TestSlowHeadersComplete(t *testing.T) {
	reads := make(chan int, 1)
	addr := rawServer(t, func(c net.Conn, _ *bufio.Reader, _ int) {
		cc := &countingConn{Conn: c}
		if _, err := readReq(bufio.NewReaderSize(cc, 16)); err != nil {
			reads <- -1
			return
		}
		io.WriteString(c, ok200)
		reads <- cc.reads
	})
	rec := hostile(t, HostileRequest{Kind: record.HostileSlowHeaders, Target: addr, Method: "GET", Path: "/slow?ms=0", Rate: 400})
	head, _ := (&HostileRequest{Method: "GET", Path: "/slow?ms=0", Host: addr}).bytes("h-1")
	if rec.Class != record.ClassOK || rec.Status != 200 || rec.SentBytes != int64(len(head)) || rec.Written == 0 {
		t.Errorf("record %+v: want ok 200 with all %d bytes sent and written_ns", rec, len(head))
	}
	if n := <-reads; n < 10 {
		t.Errorf("server read the %d-byte request in %d reads, want it trickled (>= 10)", len(head), n)
	}
}

// Server behaviours while a request trickles, and the class each gives.
func TestSlowClientOutcomes(t *testing.T) {
	tests := []struct {
		name   string
		kind   string
		server func(c net.Conn, br *bufio.Reader)
		class  record.Class
		status int
	}{
		{"408 mid-headers", record.HostileSlowHeaders, func(c net.Conn, br *bufio.Reader) {
			io.ReadFull(br, make([]byte, 5))
			io.WriteString(c, "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
		}, record.ClassHTTPError, 408},
		{"close mid-body", record.HostileSlowBody, func(c net.Conn, br *bufio.Reader) {
			req, err := readHead(br)
			if err == nil {
				io.ReadFull(req, make([]byte, 5))
			}
		}, record.ClassEOF, 0},
		{"reset mid-body", record.HostileSlowBody, func(c net.Conn, br *bufio.Reader) {
			req, err := readHead(br)
			if err == nil {
				io.ReadFull(req, make([]byte, 5))
			}
			c.(*net.TCPConn).SetLinger(0)
		}, record.ClassReset, 0},
		{"never answers", record.HostileSlowBody, func(c net.Conn, br *bufio.Reader) {
			io.Copy(io.Discard, br)
		}, record.ClassTimeout, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := rawServer(t, func(c net.Conn, br *bufio.Reader, _ int) { tt.server(c, br) })
			rec := hostile(t, HostileRequest{Kind: tt.kind, Target: addr, Rate: 50, BodyBytes: 100, Timeout: 1500 * time.Millisecond})
			if rec.Class != tt.class || rec.Status != tt.status || rec.Written != 0 || rec.SentBytes == 0 {
				t.Errorf("record %+v: want class %s status %d, cut off before the last byte", rec, tt.class, tt.status)
			}
		})
	}
}

// readHead reads a request's head and returns its body reader.
func readHead(br *bufio.Reader) (io.Reader, error) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, err
	}
	return req.Body, nil
}

// The abort sends the headers and AbortAfter body bytes, then closes: the
// server sees exactly those bytes, then EOF (or a reset with Reset).
func TestAbort(t *testing.T) {
	for _, reset := range []bool{false, true} {
		got := make(chan error, 1)
		body := make(chan int, 1)
		addr := rawServer(t, func(c net.Conn, br *bufio.Reader, _ int) {
			r, err := readHead(br)
			if err != nil {
				got <- err
				return
			}
			n, err := io.Copy(io.Discard, r)
			body <- int(n)
			got <- err
		})
		rec := hostile(t, HostileRequest{Kind: record.HostileAbort, Target: addr, BodyBytes: 1000, AbortAfter: 10,
			Hold: 50 * time.Millisecond, Reset: reset})
		head, _ := (&HostileRequest{Method: "POST", Path: "/slow?ms=0", Host: addr, BodyBytes: 1000}).bytes("h-1")
		if rec.Class != record.ClassAborted || rec.SentBytes != int64(len(head)+10) || rec.Written != 0 ||
			!strings.Contains(rec.Error, "after 10 of 1000 body bytes") || rec.Status != 0 {
			t.Errorf("reset %v: record %+v: want aborted after %d bytes", reset, rec, len(head)+10)
		}
		err := <-got
		if n := <-body; n != 10 {
			t.Errorf("reset %v: server read %d body bytes, want 10", reset, n)
		}
		if wantReset := errors.Is(err, syscall.ECONNRESET); wantReset != reset || err == nil {
			t.Errorf("reset %v: server's read ended with %v", reset, err)
		}
	}
}

// An answer or a refusal that comes before the abort is the outcome.
func TestAbortOutcomeFirst(t *testing.T) {
	addr := rawServer(t, func(c net.Conn, br *bufio.Reader, _ int) {
		if _, err := readHead(br); err == nil {
			io.WriteString(c, "HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
		}
	})
	rec := hostile(t, HostileRequest{Kind: record.HostileAbort, Target: addr, Hold: 5 * time.Second})
	if rec.Class != record.ClassHTTPError || rec.Status != 413 || rec.FirstByte == 0 {
		t.Errorf("record %+v: want http_error 413 (answered before the abort)", rec)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	if rec := hostile(t, HostileRequest{Kind: record.HostileAbort, Target: closed}); rec.Class != record.ClassRefused || rec.SentBytes != 0 {
		t.Errorf("record %+v: want refused, nothing sent", rec)
	}
}
