// Package ws is the WebSocket load driver: N long-lived clients
// on a target's /events stream, each reconnecting by a declared policy
// (immediate, exponential, full jitter; the retry counter reset on every
// open or only after a stable connection; the double-schedule bug as an
// explicit variant), optionally resuming after its last sequence number,
// and deduplicating events by id in a bounded cache.
//
// It is honest the way loadgen is: every connection attempt is one
// record.WSAttempt, every opened connection ends in exactly one
// record.WSClose, and each client's record.WSClient totals add up to them
// (record.CheckWSAccounting). Nothing is retried behind the records' back.
// Every loop is bounded in count (attempts per client) and time (the run's
// duration, the handshake and close timeouts), and the driver talks only to
// the one URL it is given.
package ws
