package record

// The WebSocket names and records (load.kind ws): the /events stream's frames,
// the target's WebSocket lifecycle events, the upgrade refusal header, and
// the lines the WebSocket load driver (loadgen/ws) prints. Each wire name
// is defined once, here; docs/protocol.md lists them.

// LoadKindWS is Meta.LoadKind for a run driven by the WebSocket load agent
// (cmd/wsagent); its lines are ws_attempt, ws_close and ws_client.
const LoadKindWS = "ws"

// The "type" of the WebSocket load driver's lines.
const (
	// TypeWSAttempt is one WSAttempt line: one connection attempt.
	TypeWSAttempt = "ws_attempt"
	// TypeWSClose is one WSClose line: how one opened connection ended.
	TypeWSClose = "ws_close"
	// TypeWSClient is one WSClient line: one client's totals, printed when
	// the client stops.
	TypeWSClient = "ws_client"
)

func init() {
	registerLineType[WSAttempt](TypeWSAttempt)
	registerLineType[WSClose](TypeWSClose)
	registerLineType[WSClient](TypeWSClient)
}

// The WebSocket lifecycle events a target prints on /events retirement.
// Both targets serve /events and log them (the Node target from
// server.js, where TestNodeTargetEventNames looks), so they are in Events
// too.
const (
	// EventWSClosing: full mode began retiring its WebSocket streams
	// (Conns open); Ms since the signal; Msg the spread and the deadline.
	EventWSClosing = "ws_closing"
	// EventWSCloseSent: a close frame (1001) was written to stream Conn;
	// Ms since the signal.
	EventWSCloseSent = "ws_close_sent"
	// EventWSTerminated: stream Conn had not finished the closing handshake
	// by the close deadline and its connection was closed; Ms since the
	// signal, Msg why.
	EventWSTerminated = "ws_terminated"
	// EventWSAbandoned: the process exits (close mode, or full mode at the
	// DRAIN_MS deadline) with Conns WebSocket streams still open; their
	// clients see the TCP connection end without a close frame (1006).
	EventWSAbandoned = "ws_abandoned"
)

// WSEvents lists the WebSocket lifecycle events, in the order of a
// full-mode retirement; Events ends with them.
var WSEvents = []string{EventWSClosing, EventWSCloseSent, EventWSTerminated, EventWSAbandoned}

// RefusalHeader is the response header with which a target says why it
// refused a WebSocket upgrade (status 503): RefusalDraining or
// RefusalCapacity. A 503 without it came from someone else (a proxy).
const RefusalHeader = "X-Shutdownlab-Refusal"

// The values of RefusalHeader.
const (
	// RefusalDraining: the target is retiring and admits no new stream.
	RefusalDraining = "draining"
	// RefusalCapacity: the upgrade exceeded the target's handshake rate.
	RefusalCapacity = "capacity"
)

// WSFrameEvent is the Type of an event frame on /events.
const WSFrameEvent = "event"

// WSFrame is one text frame of the /events stream, a JSON object.
type WSFrame struct {
	// Type is WSFrameEvent.
	Type string `json:"type"`
	// ID is the event's id, unique within the stream: the client dedupes
	// on it.
	ID string `json:"id"`
	// Seq is the event's sequence number in the stream: consecutive
	// events have consecutive numbers, so a client sees gaps.
	Seq int64 `json:"seq"`
	// TimeNs is when the event was due, Unix ns.
	TimeNs int64 `json:"ts_ns"`
	// Replay is true for an event sent from the replay buffer because the
	// client asked for what followed its cursor (?after=SEQ).
	Replay bool `json:"replay,omitempty"`
}

// The values of WSClose.ClosedBy: who ended a connection.
const (
	// WSClosedByServer: the server sent a close frame first.
	WSClosedByServer = "server"
	// WSClosedByClient: the client sent a close frame first (the driver
	// was stopping) and the answer echoed its code 1000.
	WSClosedByClient = "client"
	// WSClosedAbnormal: the connection ended without a close frame from
	// either side (code 1006): reset, EOF, or the client gave up.
	WSClosedAbnormal = "abnormal"
)

// WSCodeAbnormal is the close code recorded when no close frame arrived
// (RFC 6455 1006: never sent on the wire).
const WSCodeAbnormal = 1006

// WSAttempt is one connection attempt of the WebSocket load driver. Every
// attempt is one record, opened or not: nothing is retried behind it.
type WSAttempt struct {
	// Type is TypeWSAttempt.
	Type string `json:"type"`
	// Client is the index of the long-lived client that made the attempt.
	Client int `json:"client"`
	// Attempt counts the client's attempts from 1.
	Attempt int `json:"attempt"`
	// Conn identifies the connection within the driver's run; 0 when it
	// did not open.
	Conn uint64 `json:"conn,omitempty"`
	// Cause is what scheduled the attempt: "start", or the handler that
	// reacted to the previous connection's end ("error", "close"; both for
	// one end is the double-schedule bug).
	Cause string `json:"cause"`
	// Retry is the reconnect policy's retry counter the delay came from
	// (0 for the first attempt and after a reset).
	Retry int `json:"retry"`
	// DelayMs is how long the client waited before this attempt.
	DelayMs float64 `json:"delay_ms"`
	// After is the resume cursor sent (?after=SEQ); omitted when none.
	After *int64 `json:"after,omitempty"`
	// Start is when the handshake began; End when it reached its outcome.
	Start int64 `json:"start_ns"`
	End   int64 `json:"end_ns"`
	// Status is the handshake's HTTP status (101 when opened); 0 when no
	// response was read.
	Status int `json:"status,omitempty"`
	// Refusal is the response's RefusalHeader, if any.
	Refusal string `json:"refusal,omitempty"`
	// Upstream is the response's UpstreamHeader: the replica a proxy sent
	// the handshake to (topology caddy); empty without it.
	Upstream string `json:"upstream,omitempty"`
	// Class is ClassOK when the connection opened (101), else the failure
	// class (http_error, refused, reset, eof, timeout).
	Class Class `json:"class"`
	// Error is the failure's text.
	Error string `json:"error,omitempty"`
}

// WSEventCounts counts the events of one connection (WSClose) or of one client
// over all its connections (WSClient).
type WSEventCounts struct {
	// Received counts event frames read.
	Received int `json:"received"`
	// DupRejected counts frames the client's bounded id cache rejected.
	DupRejected int `json:"dup_rejected"`
	// DupAccepted counts frames the id cache let through although their
	// sequence number had been delivered before (an evicted id): the
	// application processed them twice.
	DupAccepted int `json:"dup_accepted"`
	// Replayed counts frames marked replay that were delivered.
	Replayed int `json:"replayed"`
	// Gaps counts jumps forward in the sequence (a frame more than one
	// past the highest delivered).
	Gaps int `json:"gaps"`
	// Skipped counts the sequence numbers those jumps passed over.
	Skipped int64 `json:"skipped"`
}

// WSClose is how one opened connection ended, with its events.
type WSClose struct {
	// Type is TypeWSClose.
	Type string `json:"type"`
	// Client, Attempt and Conn identify the connection (as its WSAttempt).
	Client  int    `json:"client"`
	Attempt int    `json:"attempt"`
	Conn    uint64 `json:"conn"`
	// Opened is when the handshake completed; Closed when the connection
	// ended (the close frame arrived, or the read failed).
	Opened int64 `json:"opened_ns"`
	Closed int64 `json:"closed_ns"`
	// CloseFrame is when the server's close frame arrived, set only by a
	// raw peer (Config.RawPeers in loadgen/ws), which never answers it and
	// reads on until the server ends the TCP connection: Closed −
	// CloseFrame is how long the server let an unanswered close stand (its
	// close deadline), unless Error says the driver stopped first. 0 when
	// no close frame arrived.
	CloseFrame int64 `json:"close_frame_ns,omitempty"`
	// Code and Reason are the close frame's (WSCodeAbnormal and empty when
	// none arrived).
	Code   int    `json:"code"`
	Reason string `json:"reason,omitempty"`
	// ClosedBy is WSClosedByServer, WSClosedByClient or WSClosedAbnormal.
	ClosedBy string `json:"closed_by"`
	// Error is the read error that ended an abnormal connection; for a
	// raw peer also what ended the connection after a close frame when it
	// was not the server (the driver stopping).
	Error string `json:"error,omitempty"`
	// LastSeq is the client's highest delivered sequence number when the
	// connection ended (0 when none): where a resume cursor starts.
	LastSeq int64 `json:"last_seq,omitempty"`
	WSEventCounts
}

// WSClient is one client's totals, printed once when it stops.
type WSClient struct {
	// Type is TypeWSClient.
	Type string `json:"type"`
	// Client is the client's index.
	Client int `json:"client"`
	// Attempts = Opened + Failed; Closes = Opened.
	Attempts int `json:"attempts"`
	Opened   int `json:"opened"`
	Failed   int `json:"failed"`
	Closes   int `json:"closes"`
	WSEventCounts
	// FirstSeq and LastSeq are the lowest and highest sequence numbers
	// delivered (0 when none).
	FirstSeq int64 `json:"first_seq,omitempty"`
	LastSeq  int64 `json:"last_seq,omitempty"`
	// Unknown counts the sequence numbers in [FirstSeq, LastSeq] never
	// delivered: events the client missed and never recovered. Without
	// replay a reconnect's gap lands here, never as zero loss.
	Unknown int64 `json:"unknown"`
	// Exhausted is true when the client stopped because its attempt
	// budget was used up, not because the run ended.
	Exhausted bool `json:"exhausted,omitempty"`
}
