package targetapp

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/record"
)

// wsStream is one accepted /events connection.
type wsStream struct {
	id   int64
	conn *websocket.Conn
	raw  net.Conn // the hijacked connection: closing it terminates the stream

	stopWrite chan struct{} // closed: the writer stops (a close frame follows)
	stopOnce  sync.Once
	readDone  chan struct{} // closed when the reader has ended (the peer's close frame, or the connection's end)
	done      chan struct{} // closed when the stream has ended and left the hub
}

// wsHub holds the open streams.
type wsHub struct {
	mu      sync.Mutex
	streams map[int64]*wsStream
	next    int64
	admit   *admission // nil: no handshake-rate capacity
	events  *eventStream
	onAdd   func(*wsStream) // set once retirement began: retires a late stream too
}

func newWSHub(cfg Config) *wsHub {
	h := &wsHub{streams: map[int64]*wsStream{}, events: newEventStream(cfg.EventsPerS, cfg.EventsReplay)}
	if cfg.UpgradesPerS > 0 {
		h.admit = newAdmission(cfg.UpgradesPerS)
	}
	return h
}

// WSConns returns the number of open /events streams.
func (a *App) WSConns() int {
	a.ws.mu.Lock()
	defer a.ws.mu.Unlock()
	return len(a.ws.streams)
}

// hijackRecorder lets websocket.Accept hijack the connection and keeps the
// net.Conn, so the stream can be terminated without a closing handshake.
type hijackRecorder struct {
	http.ResponseWriter
	conn net.Conn
}

// Hijack implements http.Hijacker.
func (h *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	h.conn = c
	return c, rw, err
}

// refuse answers an upgrade with 503, Connection: close and the reason in
// record.RefusalHeader.
func refuse(w http.ResponseWriter, reason string) {
	w.Header().Set("Connection", "close")
	w.Header().Set(record.RefusalHeader, reason)
	writeError(w, http.StatusServiceUnavailable, "upgrade refused: "+reason)
}

// events is GET /events[?after=SEQ]: admission, then the stream.
func (a *App) events(w http.ResponseWriter, r *http.Request) {
	var after int64
	has := r.URL.Query().Has("after")
	if has {
		v := r.URL.Query().Get("after")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "bad after="+strconv.Quote(v)+": must be a sequence number ≥ 0")
			return
		}
		after = n
	}
	a.mu.Lock()
	draining := a.draining
	a.mu.Unlock()
	if draining && !a.cfg.AdmitDraining {
		refuse(w, record.RefusalDraining)
		return
	}
	if a.ws.admit != nil && !a.ws.admit.allow(a.now()) {
		refuse(w, record.RefusalCapacity)
		return
	}
	if a.cfg.Instance != "" {
		w.Header().Set(record.UpstreamHeader, a.cfg.Instance)
	}
	hr := &hijackRecorder{ResponseWriter: w}
	c, err := websocket.Accept(hr, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return // Accept has answered the client
	}
	s := &wsStream{conn: c, raw: hr.conn, stopWrite: make(chan struct{}), readDone: make(chan struct{}),
		done: make(chan struct{})}
	if !a.ws.add(s) {
		_ = c.CloseNow()
		return
	}
	cursor, replayTo := a.ws.events.start(after, has)
	a.serveStream(s, cursor, replayTo)
}

// add registers s unless the app is closing; it numbers s.
func (h *wsHub) add(s *wsStream) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.streams == nil {
		return false
	}
	h.next++
	s.id = h.next
	h.streams[s.id] = s
	if h.onAdd != nil {
		go h.onAdd(s)
	}
	return true
}

// serveStream writes the events after cursor until the writer is stopped
// or the connection fails, then waits for the reader (the peer's close
// frame, or the connection's end) and removes the stream.
func (a *App) serveStream(s *wsStream, cursor, replayTo int64) {
	defer func() {
		a.ws.mu.Lock()
		delete(a.ws.streams, s.id)
		a.ws.mu.Unlock()
		close(s.done)
		a.poke()
	}()
	go s.read()
	ctx := context.Background()
	for {
		frames, last, next := a.ws.events.after(cursor, replayTo)
		for _, f := range frames {
			if s.stopping() {
				<-s.readDone // retire owns the connection now: the close handshake or its deadline
				return
			}
			if err := s.conn.Write(ctx, websocket.MessageText, f); err != nil {
				// A write that failed because retire began the closing
				// handshake under it is not the peer's failure: the
				// connection is retire's to end at its deadline.
				if !s.stopping() {
					_ = s.raw.Close()
				}
				<-s.readDone
				return
			}
		}
		cursor = last
		select {
		case <-next:
		case <-s.stopWrite:
			<-s.readDone // bounded by whoever stopped the writer
			return
		case <-s.readDone:
			_ = s.raw.Close()
			return
		}
	}
}

// stopping reports whether the writer was told to stop (retirement began:
// retire closes stopWrite before it starts the closing handshake).
func (s *wsStream) stopping() bool {
	select {
	case <-s.stopWrite:
		return true
	default:
		return false
	}
}

// read reads until the connection ends: data frames from the client are
// discarded; the peer's close frame ends it (the library answers a close
// the server did not start), and so does any read error.
func (s *wsStream) read() {
	defer close(s.readDone)
	for {
		if _, _, err := s.conn.Read(context.Background()); err != nil {
			return
		}
	}
}

// closeStreams terminates every stream and refuses new ones (App.Close).
func (h *wsHub) closeStreams() {
	h.mu.Lock()
	streams := h.streams
	h.streams = nil
	h.mu.Unlock()
	for _, s := range streams {
		s.stopOnce.Do(func() { close(s.stopWrite) })
		_ = s.raw.Close()
	}
	for _, s := range streams {
		<-s.done
	}
}
