package record

// The names that cross a process boundary, each defined once: the core
// ones here (the load agent's line types, the targets' lifecycle events,
// the files a target writes on its DATA_DIR, the action kinds and the
// topology record.Meta names), and each capability's in its own file
// beside its records (probe.go, ws.go, hostile.go, jobs.go,
// termination.go, rollout.go), so that a new capability adds its names
// without editing this one. docs/protocol.md lists them; every writer and
// reader uses these constants, never a literal.

// The "type" of every line the load agent prints on stdout (the probe's,
// the WebSocket driver's and the job producer's are in their own files).
const (
	// TypeStart is the Start line: load start has passed.
	TypeStart = "start"
	// TypeRequest is one Request record.
	TypeRequest = "req"
	// TypeSummary is the agent's closing Summary line.
	TypeSummary = "summary"
)

// The lifecycle events a target prints (Event.Event). docs/protocol.md,
// "Lifecycle events", says when each one is logged.
const (
	// EventUp: listening; Mode and Msg describe the configuration.
	EventUp = "up"
	// EventSignal: a SIGTERM/SIGINT arrived (the first one starts the
	// shutdown; later ones carry Msg "ignored: ...").
	EventSignal = "signal"
	// EventReadyFalse: /readyz turned 503 (full mode, step 1).
	EventReadyFalse = "ready_false"
	// EventListenerClosed: the listener is closed (full step 3, or close
	// mode's stock close).
	EventListenerClosed = "listener_closed"
	// EventShutdownReturned: the stock close returned (close mode).
	EventShutdownReturned = "shutdown_returned"
	// EventDrained: nothing left in flight (full mode, step 5).
	EventDrained = "drained"
	// EventDeadline: DRAIN_MS passed before the drain finished.
	EventDeadline = "deadline"
	// EventHandlerJobStart: a /job was accepted. A "handler job" is the
	// HTTP /job endpoint's work, done inside its request handler; the
	// queue jobs of load.kind jobs (package jobs, capabilities/queuejobs) are another
	// thing, and their names say Jobs or queue.
	EventHandlerJobStart = "job_start"
	// EventHandlerJobCommit: the job's COMMIT line was fsynced.
	EventHandlerJobCommit = "job_commit"
	// EventHandlerJobError: writing job.log failed; the job stopped.
	EventHandlerJobError = "job_error"
	// EventHandlerJobAbandoned: the process exits while a job still runs.
	EventHandlerJobAbandoned = "job_abandoned"
	// EventExit: logged just before the process exits (Code).
	EventExit = "exit"

	// The cluster target's supervisor (targetapp/node/cluster.js, its
	// primary process) logs these besides up, signal and exit.

	// EventFork: the primary forked a worker (Worker, PID; Msg "start" for
	// the initial pool, "replaces worker=K" for a re-fork).
	EventFork = "fork"
	// EventWorkerExit: a worker process ended (Worker, PID; Code when it
	// exited, Signal when a signal killed it).
	EventWorkerExit = "worker_exit"
	// EventTeardownBroadcast: the gated supervisor told every worker over
	// IPC to shut down (its first SIGTERM/SIGINT).
	EventTeardownBroadcast = "teardown_broadcast"
	// EventForcedExit: the teardown timeout passed with workers still
	// alive; the primary kills them and exits non-zero (Ms since the
	// signal; Msg names what was still alive).
	EventForcedExit = "forced_exit"
	// EventWorkerUp: the queue worker (WORKER=on) has migrated and
	// started fetching jobs; Msg describes its configuration.
	EventWorkerUp = "worker_up"
	// EventWorkerStopping: the worker stopped fetching jobs (Ms since the
	// signal; Msg says how it stops: soft stop, deadline).
	EventWorkerStopping = "worker_stopping"
	// EventWorkerStopped: the worker's stop returned (Ms since the
	// signal; JobsCut, JobsRunning).
	EventWorkerStopped = "worker_stopped"
	// EventPoolClosed: the database pool was closed (Ms since the signal).
	EventPoolClosed = "pool_closed"
)

// Events lists every lifecycle event name, in the order of a full-mode
// shutdown where there is one; the WebSocket events (WSEvents, record/ws.go)
// close the list.
var Events = []string{EventUp, EventHandlerJobStart, EventHandlerJobCommit, EventHandlerJobError, EventSignal,
	EventReadyFalse, EventListenerClosed, EventShutdownReturned, EventDrained, EventDeadline,
	EventHandlerJobAbandoned, EventExit, EventFork, EventWorkerExit, EventTeardownBroadcast, EventForcedExit,
	EventWSClosing, EventWSCloseSent, EventWSTerminated, EventWSAbandoned}

// WorkerEvents are the queue worker's events (the Go target with
// WORKER=on), in the order of a shutdown; the Node targets have
// no worker, so they are not in Events.
var WorkerEvents = []string{EventWorkerUp, EventWorkerStopping, EventWorkerStopped, EventPoolClosed}

// The files a target writes on its DATA_DIR, read back by the runner
// after the run.
const (
	// DefaultDataDir is the target's DATA_DIR unless the environment says
	// otherwise.
	DefaultDataDir = "/data"
	// LedgerFile holds one X-Request-Id per POST /write, fsynced before
	// the work.
	LedgerFile = "ledger.log"
	// HandlerJobFile holds the background job's "step i/N" lines, then COMMIT.
	HandlerJobFile = "job.log"
)

// The values of Action.Kind: how the acted-on replica was told to stop (a
// roll records how it stopped replica A, with Action.Roll set; the
// kubelet's termination is ActionTerminate, termination.go).
const (
	// ActionSignal is docker kill -s Action.Signal.
	ActionSignal = "signal"
	// ActionStop is docker stop -t Action.StopTimeoutS.
	ActionStop = "stop"
)

// TopologyCaddy is Meta.Topology for a run through the Caddy reverse
// proxy; the direct topology leaves Meta.Topology empty.
const TopologyCaddy = "caddy"

// The values of Summary.StoppedBy: why the load ended.
const (
	// StoppedByDuration: the load's duration elapsed.
	StoppedByDuration = "duration"
	// StoppedByCount: the requested number of requests was accounted.
	StoppedByCount = "count"
	// StoppedBySignal: the agent was told to stop (SIGTERM/SIGINT).
	StoppedBySignal = "signal"
)
