package record

// Step records one step done to the acted-on replica before its stop
// action (scenario action.before), as it actually happened.
type Step struct {
	// Kind is StepCrash or StepSignal.
	Kind string `json:"kind"`
	// Signal is the signal sent (StepCrash sends SIGUSR2).
	Signal string `json:"signal"`
	// AfterMs is the planned delay after load start.
	AfterMs float64 `json:"after_ms"`
	// SentNs is the wall-clock time just before the engine call,
	// ReturnedNs just after it returned; zero SentNs: never sent.
	SentNs     int64 `json:"sent_ns"`
	ReturnedNs int64 `json:"returned_ns"`
	// Error is the engine's error, if the call failed.
	Error string `json:"error,omitempty"`
	// Kills are the engine's kill events of the replica from this step's
	// send until the next step's (or the action's): the first one bounds
	// when the signal arrived.
	Kills []Kill `json:"kills,omitempty"`
}

// The values of Step.Kind.
const (
	// StepCrash is docker kill -s SIGUSR2 to the cluster target: its
	// primary SIGKILLs one worker.
	StepCrash = "crash"
	// StepSignal is docker kill -s Step.Signal.
	StepSignal = "signal"
	// StepAgain is the action's signal sent again (Action.Again).
	StepAgain = "again"
)
