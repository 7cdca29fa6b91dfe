package targetapp

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/record"
)

// retireStreams is the WebSocket part of step 4 (full mode): it logs
// ws_closing (when a stream is open) and sends every open /events stream — and any stream that
// opens later — a close frame 1001 at a random moment in
// [0, CLOSE_SPREAD_MS), then gives its peer CLOSE_DEADLINE_MS to finish
// the closing handshake before it terminates the connection. It returns at
// once; the drain waits for the streams to end (WSConns).
func (a *App) retireStreams(signalAt time.Time) {
	h := a.ws
	h.mu.Lock()
	if h.onAdd != nil {
		h.mu.Unlock()
		return
	}
	h.onAdd = func(s *wsStream) { a.retire(s, a.closeOffset(), signalAt) }
	streams := make([]*wsStream, 0, len(h.streams))
	for _, s := range h.streams {
		streams = append(streams, s)
	}
	h.mu.Unlock()
	if len(streams) == 0 {
		return // nothing to retire: an HTTP-only drain logs no WebSocket event
	}
	a.log.Log(record.Event{Event: record.EventWSClosing, Ms: msp(a.now().Sub(signalAt)), Conns: intp(len(streams)),
		Msg: fmt.Sprintf("close_spread_ms=%d close_deadline_ms=%d", a.cfg.CloseSpread.Milliseconds(),
			a.cfg.CloseDeadline.Milliseconds())})
	for _, s := range streams {
		go a.retire(s, a.closeOffset(), signalAt)
	}
}

// closeOffset is a stream's moment in the spread window: uniform in
// [0, CLOSE_SPREAD_MS), 0 without a window.
func (a *App) closeOffset() time.Duration {
	if a.cfg.CloseSpread <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(a.cfg.CloseSpread)))
}

// retire closes one stream after the given offset: it stops the writer,
// logs ws_close_sent and starts the closing handshake (code 1001); when
// the peer's close frame (or the connection's end) has not come within
// CLOSE_DEADLINE_MS, it logs ws_terminated and closes the connection.
func (a *App) retire(s *wsStream, offset time.Duration, signalAt time.Time) {
	t := time.NewTimer(offset)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.done:
		return // ended on its own before its moment
	}
	s.stopOnce.Do(func() { close(s.stopWrite) })
	a.log.Log(record.Event{Event: record.EventWSCloseSent, Ms: msp(a.now().Sub(signalAt)), Conn: &s.id})
	go func() { _ = s.conn.Close(websocket.StatusGoingAway, "going away") }()
	dl := time.NewTimer(a.cfg.CloseDeadline)
	defer dl.Stop()
	select {
	case <-s.readDone:
	case <-dl.C:
		a.log.Log(record.Event{Event: record.EventWSTerminated, Ms: msp(a.now().Sub(signalAt)), Conn: &s.id,
			Msg: fmt.Sprintf("no close frame within close_deadline_ms=%d", a.cfg.CloseDeadline.Milliseconds())})
		_ = s.raw.Close()
	}
}
