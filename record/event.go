package record

// Event is one lifecycle line printed by a target app on stdout, one JSON
// object per line. The target app documents when each event is emitted; the
// harness times shutdown phases from them.
type Event struct {
	// TimeNs is the wall-clock time of the event, Unix nanoseconds.
	TimeNs int64 `json:"ts_ns"`
	// Event is the event name: up, signal, ready_false, listener_closed,
	// drained, deadline, job_abandoned, exit (and others a target may add).
	Event string `json:"event"`
	// Mode is the shutdown mode (on "up").
	Mode string `json:"mode,omitempty"`
	// Signal is the signal name (on "signal").
	Signal string `json:"signal,omitempty"`
	// Ms is a duration in milliseconds (on "drained": time from the signal
	// until in-flight requests and jobs were done).
	Ms *float64 `json:"ms,omitempty"`
	// Inflight is the number of in-flight requests (on "deadline").
	Inflight *int `json:"inflight,omitempty"`
	// JobStep and JobSteps say how far the background job got (on
	// "deadline" and job events).
	JobStep  *int `json:"job_step,omitempty"`
	JobSteps *int `json:"job_steps,omitempty"`
	// Code is the process exit code (on "exit").
	Code *int `json:"code,omitempty"`
	// Msg is free text.
	Msg string `json:"msg,omitempty"`
}
