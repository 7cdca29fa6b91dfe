package record

import "slices"

// Class is the single outcome class of one request. Every request the load
// agent starts ends in exactly one class; nothing is retried, so
// started = sum over all classes, always.
type Class string

// The outcome classes. See docs/protocol.md, "Outcome accounting".
const (
	// ClassOK is a complete response with a 2xx status.
	ClassOK Class = "ok"
	// ClassHTTPError is a complete response with any non-2xx status; the
	// status is in Request.Status.
	ClassHTTPError Class = "http_error"
	// ClassRefused means the connection could not be established: the request
	// provably never reached the server.
	ClassRefused Class = "refused"
	// ClassReset means the connection was reset (ECONNRESET, EPIPE) after the
	// request was (at least partly) written: outcome unknown.
	ClassReset Class = "reset"
	// ClassEOF means the server closed the connection cleanly before a full
	// response arrived, after the request was written: outcome unknown.
	ClassEOF Class = "eof"
	// ClassTimeout means no complete response arrived within the client's
	// per-request timeout (dial, write or read).
	ClassTimeout Class = "timeout"
	// ClassNotSent is a request the schedule called for that was never
	// started on the wire: an open-loop slot missed because every worker was
	// busy, or a slot skipped because the run was stopping.
	ClassNotSent Class = "not_sent"
	// ClassAborted is a request the client itself cut off on purpose, by
	// closing its connection before the request was complete (the hostile
	// load kind HostileAbort): no outcome was awaited, so it is neither a
	// success nor a failure of the service. A response or a connection
	// error that came before the abort is recorded as such instead.
	ClassAborted Class = "aborted"
)

// Classes lists every Class in report order.
var Classes = []Class{ClassOK, ClassHTTPError, ClassRefused, ClassReset, ClassEOF, ClassTimeout, ClassNotSent, ClassAborted}

// Known reports whether c is one of Classes: a class the load agent
// writes. A request of any other class (empty included) makes accounting
// fail (CheckAccounting).
func (c Class) Known() bool { return slices.Contains(Classes, c) }

// Failed reports whether a request that ended in class c failed:
// http_error, refused, reset, eof and timeout did; ok, not_sent and
// aborted did not. A class that is not Known counts as failed, never silently as "not
// failed"; it also makes accounting fail, so such a run is invalid.
func (c Class) Failed() bool { return c != ClassOK && c != ClassNotSent && c != ClassAborted }
