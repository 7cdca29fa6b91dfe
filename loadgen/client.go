package loadgen

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// now is the wall clock in Unix nanoseconds, as records carry it.
func now() int64 { return time.Now().UnixNano() }

// preparedEntry is a MixEntry with its request bytes built once: head is
// everything up to the X-Request-Id value, tail the rest of the header and
// the body.
type preparedEntry struct {
	MixEntry
	head []byte
	tail []byte
	req  *http.Request // for http.ReadResponse (HEAD has no body)
}

func prepare(e MixEntry, host string) *preparedEntry {
	p := &preparedEntry{MixEntry: e}
	p.head = []byte(e.Method + " " + e.Path + " HTTP/1.1\r\nHost: " + host +
		"\r\nUser-Agent: shutdownlab-loadagent\r\nX-Request-Id: ")
	tail := "\r\n"
	if e.BodyBytes > 0 || (e.Method != "GET" && e.Method != "HEAD") {
		tail += "Content-Length: " + strconv.Itoa(e.BodyBytes) + "\r\n"
	}
	if e.BodyBytes > 0 {
		tail += "Content-Type: application/octet-stream\r\n"
	}
	tail += "\r\n" + strings.Repeat("x", e.BodyBytes)
	p.tail = []byte(tail)
	p.req = &http.Request{Method: e.Method}
	return p
}

// firstByteConn records when the first response byte of the current request
// arrived.
type firstByteConn struct {
	net.Conn
	first int64
}

func (c *firstByteConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.first == 0 {
		c.first = now()
	}
	return n, err
}

// client is one closed-loop client or open-loop worker with its own
// keep-alive connection. Only its goroutine uses it, except kill.
type client struct {
	r      *runner
	worker int

	mu     sync.Mutex // guards nc and killed against kill
	nc     *firstByteConn
	killed bool

	br   *bufio.Reader
	id   uint64 // current connection id
	uses int    // requests sent on the current connection
	buf  []byte
}

func newClient(r *runner, worker int) *client {
	return &client{r: r, worker: worker, buf: make([]byte, 0, 512)}
}

// kill cuts off whatever the client is doing: called when the drain bound
// expires.
func (c *client) kill() {
	c.mu.Lock()
	c.killed = true
	if c.nc != nil {
		c.nc.SetDeadline(time.Unix(1, 0))
	}
	c.mu.Unlock()
}

// closeConn drops the current connection; the next request dials.
func (c *client) closeConn() {
	c.mu.Lock()
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
	c.mu.Unlock()
}

// fail completes rec as failed at stage and drops the connection.
func (c *client) fail(rec *record.Request, stage Stage, err error) {
	rec.End = now()
	c.mu.Lock()
	if c.killed {
		err = errStopping
	}
	c.mu.Unlock()
	rec.Class = Classify(stage, err, 0)
	rec.Error = err.Error()
	if stage != StageDial {
		c.closeConn()
	}
}

// do performs one request and fills rec; sched is its open-loop
// scheduled time (0 in a closed loop). It never retries: whatever happens
// is the outcome.
func (c *client) do(rec *record.Request, e *preparedEntry, seq uint64, sched int64) {
	r := c.r
	*rec = record.Request{Type: record.TypeRequest, Method: e.Method, Path: e.Path, Worker: c.worker, Scheduled: sched}
	start := time.Now()
	rec.Start = start.UnixNano()
	deadline := start.Add(r.cfg.Timeout)

	c.buf = append(c.buf[:0], r.cfg.IDPrefix...)
	c.buf = append(c.buf, '-')
	c.buf = strconv.AppendUint(c.buf, seq, 10)
	rec.ID = string(c.buf)

	if c.nc == nil {
		dialDeadline := start.Add(r.cfg.DialTimeout)
		if deadline.Before(dialDeadline) {
			dialDeadline = deadline
		}
		d := net.Dialer{Deadline: dialDeadline}
		nc, err := d.DialContext(r.hardCtx, "tcp", r.cfg.Target)
		if err != nil {
			c.fail(rec, StageDial, err)
			return
		}
		rec.Connected = now()
		c.mu.Lock()
		c.nc = &firstByteConn{Conn: nc}
		killed := c.killed
		c.mu.Unlock()
		if killed {
			c.fail(rec, StageWrite, errStopping)
			return
		}
		if c.br == nil {
			c.br = bufio.NewReaderSize(c.nc, 4096)
		} else {
			c.br.Reset(c.nc)
		}
		c.id = r.connID.Add(1)
		c.uses = 0
	}
	rec.Conn = c.id
	rec.Reused = c.uses > 0
	c.uses++

	c.mu.Lock()
	if !c.killed {
		c.nc.SetDeadline(deadline)
	}
	c.mu.Unlock()

	c.buf = append(c.buf[:0], e.head...)
	c.buf = append(c.buf, rec.ID...)
	c.buf = append(c.buf, e.tail...)
	if _, err := c.nc.Write(c.buf); err != nil {
		c.fail(rec, StageWrite, err)
		return
	}
	rec.Written = now()

	c.nc.first = 0
	if c.br.Buffered() > 0 {
		c.nc.first = rec.Written
	}
	resp, err := http.ReadResponse(c.br, e.req)
	rec.FirstByte = c.nc.first
	if err != nil {
		c.fail(rec, StageRead, err)
		return
	}
	rec.Status = resp.StatusCode
	rec.Upstream = resp.Header.Get(record.UpstreamHeader)
	if v := resp.Header.Get("Connection"); v != "" {
		rec.ConnHeader = strings.ToLower(v)
	} else if resp.Close && resp.ProtoAtLeast(1, 1) {
		// ReadResponse deletes "Connection: close" after setting Close.
		rec.ConnHeader = "close"
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		c.fail(rec, StageBody, err)
		return
	}
	rec.End = now()
	rec.Class = Classify(StageBody, nil, resp.StatusCode)
	if resp.Close {
		c.closeConn()
	}
}
