// Package targetapp is shutdownlab's Go target app: an HTTP/1.1 server that
// speaks the target protocol (see docs/protocol.md) and shuts
// down in exactly one of three declared modes, so the harness can measure
// what each mode does to clients.
//
// # Endpoints
//
//	GET  /readyz                 200 {"ready":true,"inflight":n}; 503 {"ready":false,...} once draining
//	GET  /livez                  200 {"live":true} as long as the process lives
//	GET  /slow?ms=N              waits N ms (default 300), then 200 {"ok":true}
//	POST /write?ms=N             appends X-Request-Id + "\n" to $DATA_DIR/ledger.log and
//	                             fsyncs, THEN works N ms (default 300), then 200 {"ok":true};
//	                             missing X-Request-Id: 400
//	GET  /job?steps=N&step_ms=M  202 {"accepted":true,"steps":N,"step_ms":M} at once; a background
//	                             job sleeps M ms then appends "step i/N" (fsync) to
//	                             $DATA_DIR/job.log for i = 1..N, then appends "COMMIT".
//	                             Defaults steps=10, step_ms=300. Only one job runs at a
//	                             time: a second /job while one runs gets 409.
//	GET  /events[?after=SEQ]     a WebSocket stream of record.WSFrame events (EVENTS_PER_S),
//	                             numbered by the wall clock; with after and EVENTS_REPLAY > 0 the
//	                             buffered events after SEQ are replayed first. Upgrades get 503
//	                             (Connection: close, X-Shutdownlab-Refusal) while draining (full,
//	                             from step 1; UPGRADES_WHILE_DRAINING=accept admits them, as a server
//	                             that only fails readiness does) or beyond UPGRADES_PER_S.
//
// A bad query value gets 400 with a message naming the parameter and the
// value, for example `bad ms="x": must be an integer in 0..86400000`. A wrong
// method gets 405 from the mux. /slow and /write stop early when the client
// goes away (their request context ends); the ledger line is written before
// the work either way.
//
// In-flight requests are counted by a middleware around the work endpoints
// /slow and /write only: probes (/readyz, /livez) and /job (which answers at
// once; its work is tracked as the job) are not counted. /readyz reports that
// count, and so does the "deadline" event.
//
// # Modes
//
//   - none: no signal handling at all (signal.Notify is never called). A
//     child process dies from SIGTERM; as PID 1 in a container the kernel
//     ignores the default action and the Go runtime exits with code 2.
//   - close: on SIGTERM or SIGINT, the stock http.Server.Shutdown with
//     context.Background(): no readiness flip, no pre-stop wait, no deadline,
//     the background job is not awaited. Exit 0 when Shutdown returns.
//   - full: the five steps. (1) /readyz turns 503, /livez stays 200; (2) wait
//     PRESTOP_MS while serving normally, new connections included; (3) close
//     the listener; (4) disable keep-alives (responses carry Connection:
//     close) and close idle connections every SWEEP_MS, plus connections that
//     sent nothing for at least SWEEP_MS; (5) wait until no request is in
//     flight, no connection is left open and no job runs, then exit 0. With
//     DRAIN_MS > 0, the deadline is DRAIN_MS after the signal (the pre-stop
//     wait counts against it); when it passes first, the app exits 1. Further
//     signals during the drain are logged and otherwise ignored.
//
// /events streams are hijacked connections, which http.Server does not
// track: none mode leaves them to die with the process, close mode's
// Shutdown returns without them (ws_abandoned), and full mode retires them
// at step 3: a close frame 1001 to each at a random moment inside
// CLOSE_SPREAD_MS, and termination for a peer that has not answered within
// CLOSE_DEADLINE_MS (ws_closing, ws_close_sent, ws_terminated; see
// docs/protocol.md).
//
// # Lifecycle log
//
// Every line on stdout is one JSON object, a record.Event; ts_ns is the
// wall-clock time in Unix nanoseconds. Writes are serialized and unbuffered.
// The events, with the fields each one sets besides ts_ns and event:
//
//	up               mode; msg "host=H port=P drain_ms=D prestop_ms=S keepalive_ms=K sweep_ms=W data_dir=DIR"
//	                 (port is the bound port, so PORT=0 works)
//	signal           signal ("SIGTERM", "SIGINT"); msg "ignored: already draining" (full) or
//	                 "ignored: already shutting down" (close) for every signal after the first
//	ready_false      (full) readiness turned 503
//	listener_closed  (full, and close once Shutdown has closed it) no new connections
//	shutdown_returned (close) ms: time from the signal until http.Server.Shutdown returned;
//	                 msg holds its error, if any
//	drained          (full) ms: time from the signal until no request, connection or job was left
//	deadline         (full) inflight, job_step, job_steps (0 and 0 when no job ran); ms since the signal
//	job_start        job_step 0, job_steps
//	job_commit       job_step = job_steps = N, after COMMIT was fsynced
//	job_error        job_step, job_steps, msg: a job.log write failed; the job stopped
//	job_abandoned    job_step, job_steps: the process exits (close, or full at the deadline)
//	                 while a job runs
//	exit             code: logged just before the process exits (close and full only; in none
//	                 mode the runtime kills the process without a word)
//
// # Environment
//
// See Config for each variable, its default and its valid values. An invalid
// value makes the process print the variable and the value to stderr and exit
// 2 before it listens.
package targetapp
