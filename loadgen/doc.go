// Package loadgen is shutdownlab's honest HTTP/1.1 load client.
//
// It speaks HTTP/1.1 over its own net.Conns: requests are written by hand
// (method, path, Host, X-Request-Id, Content-Length, body; keep-alive) and
// responses are read with net/http's http.ReadResponse. Nothing is retried or
// re-dialled behind the caller's back: after a connection fails, or the
// server asks for it to be closed, the next request dials a new connection,
// and the failed request is recorded as failed, never replayed.
//
// Every request the client accounts for ends in exactly one record.Class
// (see Classify), so Summary.Started equals the sum of Summary.ByClass.
//
// Two load shapes are supported: a closed loop (Config.Clients clients, each
// with its own keep-alive connection, sending the next request when the
// previous one ends) and an open loop (a constant Config.Rate with a bounded
// pool of Config.Workers workers, where a slot no worker could take in time
// is recorded as late or as not_sent — coordinated omission stays visible).
//
// Run drives one bounded run and writes a record.Start line, one
// record.Request line per request and a final record.Summary line to an
// Encoder (NewJSONEncoder writes JSON lines).
package loadgen
