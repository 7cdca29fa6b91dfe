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
//	GET  /db?ms=N                WORKER=on only: SELECT pg_sleep(N/1000.0) on the worker's pool
//	                             (default 300), then 200 {"ok":true}; 500 {"error":"db: ..."} when
//	                             the query fails (a closed pool, a connection closed under it);
//	                             404 {"error":...} without WORKER=on.
//
// A bad query value gets 400 with a message naming the parameter and the
// value, for example `bad ms="x": must be an integer in 0..86400000`. A wrong
// method gets 405 from the mux. /slow and /write stop early when the client
// goes away (their request context ends); the ledger line is written before
// the work either way.
//
// In-flight requests are counted by a middleware around the work endpoints
// /slow, /write and /db only: health checks (/readyz, /livez) and /job
// (which answers at once; its work is tracked as the job) are not counted.
// /readyz reports that count, and so does the "deadline" event.
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
// # Queue worker (WORKER=on)
//
// With WORKER=on the app is also a queue worker (River on PostgreSQL): before
// listening it connects a pgxpool to DATABASE_URL, runs jobs.Migrate and
// starts a River client (jobs.NewClient, ID $INSTANCE or the hostname,
// WORKER_CONCURRENCY workers, RESCUE_AFTER_MS) working jobs.StepArgs jobs,
// all within 30 s (WorkerStartTimeout); a failure prints DATABASE_URL's host
// (never its password) and the error to stderr and exits 2 before "up". The
// modes then also decide the worker's stop:
//
//   - none: nothing; the process dies at the signal and its jobs are cut
//     mid-step, left "running" in River until its rescuer (RESCUE_AFTER_MS).
//   - close: after http.Server.Shutdown returned, River's Client.Stop waits
//     for the running jobs however long they take (WORKER_DEADLINE_MS does
//     not apply; a job longer than the grace period is SIGKILLed), then the
//     pool is closed; exit 0.
//   - full: at step 1 the worker stops fetching; running jobs may run until
//     WORKER_DEADLINE_MS after the signal (River's SoftStopTimeout; 0 cancels
//     them at once), then their contexts are cancelled and each stops at its
//     next checkpoint (between steps) and is handed back to the queue
//     (River: "interrupted", available again for another replica). The drain
//     waits for the worker's stop too; then the pool is closed; exit 0. When
//     DRAIN_MS passes first the app logs what it cut (worker_stopped with
//     jobs_running) and exits 1 without closing the pool.
//
// POOL_CLOSE=first is the ordering bug (J4): the pool is closed at the
// signal, in close and full mode, and its connections with it, those in use
// included (pgxpool's own Close would wait for them), so /db requests in
// flight and those arriving during the pre-stop wait get 500, and a job's
// next step write fails (the job is not completed; River cannot record its
// end either). REPEAT_SIGNAL=restart (full mode, DRAIN_MS > 0, with or
// without the worker) is the bug of J5: every further signal re-arms the
// DRAIN_MS deadline from that signal; the default, ignore, logs it and
// changes nothing.
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
//	worker_up        (WORKER=on, before up) mode; msg "concurrency=N deadline_ms=D rescue_after_ms=R
//	                 pool_close=P repeat_signal=S": migrated, River client started
//	up               mode; msg "host=H port=P drain_ms=D prestop_ms=S keepalive_ms=K sweep_ms=W data_dir=DIR"
//	                 (port is the bound port, so PORT=0 works)
//	signal           signal ("SIGTERM", "SIGINT"); msg "ignored: already draining" (full) or
//	                 "ignored: already shutting down" (close) for every signal after the first;
//	                 with REPEAT_SIGNAL=restart (full) "restarted: drain deadline DRAIN_MS=D from
//	                 this signal" (or "ignored: the drain deadline has passed")
//	ready_false      (full) readiness turned 503
//	listener_closed  (full, and close once Shutdown has closed it) no new connections
//	shutdown_returned (close) ms: time from the signal until http.Server.Shutdown returned;
//	                 msg holds its error, if any
//	drained          (full) ms: time from the signal until no request, connection or job was left
//	                 (and, with WORKER=on, the worker's stop had returned)
//	deadline         (full) inflight, job_step, job_steps (0 and 0 when no job ran); ms since the signal
//	job_start        job_step 0, job_steps
//	job_commit       job_step = job_steps = N, after COMMIT was fsynced
//	job_error        job_step, job_steps, msg: a job.log write failed; the job stopped
//	job_abandoned    job_step, job_steps: the process exits (close, or full at the deadline)
//	                 while a job runs
//	worker_stopping  (WORKER=on; full at step 1, close after shutdown_returned) ms since the signal;
//	                 msg says how: soft stop with deadline_ms, hard stop (deadline_ms=0), or no deadline
//	worker_stopped   (WORKER=on) ms since the signal when the stop returned, jobs_cut (jobs cancelled
//	                 and stopped at a checkpoint since the stop began: handed back), jobs_running
//	                 (jobs still inside their worker); msg "completed=C failed=F since the stop
//	                 began". At the drain deadline (full): logged after "deadline" with the jobs still
//	                 running, msg "gave up at the drain deadline, ..."
//	pool_closed      (WORKER=on) ms since the signal: the pool was closed (after worker_stopped; with
//	                 POOL_CLOSE=first at the signal, msg "closed first, under N connection(s) ...")
//	exit             code: logged just before the process exits (close and full only; in none
//	                 mode the runtime kills the process without a word); jobs_running: the queue
//	                 jobs the exit abandons (full, at the drain deadline)
//
// # Environment
//
// See Config for each variable, its default and its valid values (the
// worker's, WORKER, DATABASE_URL, WORKER_CONCURRENCY, WORKER_DEADLINE_MS,
// RESCUE_AFTER_MS, POOL_CLOSE and REPEAT_SIGNAL, in WorkerConfig; they are
// checked even with WORKER=off). An invalid value makes the process print the
// variable and the value to stderr and exit 2 before it listens.
package targetapp
