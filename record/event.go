package record

// Event is one lifecycle line printed by a target app on stdout, one JSON
// object per line. The target app documents when each event is emitted; the
// harness times shutdown phases from them.
type Event struct {
	// TimeNs is the wall-clock time of the event, Unix nanoseconds.
	TimeNs int64 `json:"ts_ns"`
	// Event is the event name, one of Events (EventUp, EventSignal, ...;
	// a user's image may log others, which nothing reads).
	Event string `json:"event"`
	// Mode is the shutdown mode (on EventUp).
	Mode string `json:"mode,omitempty"`
	// Signal is the signal name (on EventSignal, and EventWorkerExit when
	// a signal killed the worker).
	Signal string `json:"signal,omitempty"`
	// Ms is a duration in milliseconds since the first signal (on
	// EventDrained, EventDeadline, EventShutdownReturned).
	Ms *float64 `json:"ms,omitempty"`
	// Inflight is the number of in-flight requests (on EventDeadline).
	Inflight *int `json:"inflight,omitempty"`
	// HandlerJobStep and JobSteps say how far the background job got (on
	// EventDeadline and the job events).
	HandlerJobStep  *int `json:"job_step,omitempty"`
	HandlerJobSteps *int `json:"job_steps,omitempty"`
	// Code is the process exit code (on EventExit, and EventWorkerExit
	// when the worker exited rather than died from a signal).
	Code *int `json:"code,omitempty"`
	// Worker is the cluster worker's id, from 1 (on EventFork and
	// EventWorkerExit).
	Worker *int `json:"worker,omitempty"`
	// PID is the worker's process id (on EventFork and EventWorkerExit).
	PID int `json:"pid,omitempty"`
	// Conn is the target's number of one WebSocket stream (on
	// EventWSCloseSent, EventWSTerminated).
	Conn *int64 `json:"conn,omitempty"`
	// Conns is a number of open WebSocket streams (on EventWSClosing,
	// EventWSAbandoned).
	Conns *int `json:"conns,omitempty"`
	// JobsCut is the number of queue jobs whose context the worker
	// cancelled and that stopped at a checkpoint to be handed back (on
	// EventWorkerStopped).
	JobsCut *int `json:"jobs_cut,omitempty"`
	// JobsRunning is the number of queue jobs still running (on
	// EventWorkerStopped: nonzero when the stop gave up on them; on
	// EventExit: jobs the exit abandons).
	JobsRunning *int `json:"jobs_running,omitempty"`
	// Msg is free text.
	Msg string `json:"msg,omitempty"`
}
