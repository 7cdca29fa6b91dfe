package record

// ActionTerminate is Action.Kind for the kubelet's termination of a pod
// (Action.Termination).
const ActionTerminate = "terminate"

// Termination is the kubelet's termination of a pod as the runner
// emulated it on one replica (action kind terminate): the pod's deletion,
// its pre-stop hook, the stop signal and the SIGKILL the grace period
// ended in. Times are Unix ns of this host.
type Termination struct {
	// DeletedNs is T0, the pod's deletion: the hook starts and the
	// proxy deregistration (proxy.deregister_after) is timed from here.
	DeletedNs int64 `json:"deleted_ns"`
	// GraceS is terminationGracePeriodSeconds.
	GraceS int `json:"grace_s"`
	// Hook is the pre-stop hook's run (nil without a hook).
	Hook *HookRun `json:"hook,omitempty"`
	// Signal is the stop signal sent when the hook ended.
	Signal string `json:"signal"`
	// ExitedBeforeSignal is true when the replica had already exited when
	// the signal was due (its hook stopped it): nothing was sent, and the
	// action's SentNs is when it would have been.
	ExitedBeforeSignal bool `json:"exited_before_signal,omitempty"`
	// KillAtNs is when the kubelet's schedule sends SIGKILL; KillSentNs
	// when it was sent (0: the replica had exited by then).
	KillAtNs   int64 `json:"kill_at_ns"`
	KillSentNs int64 `json:"kill_sent_ns,omitempty"`
	// Extended is true when the grace left after the hook was raised to
	// the kubelet's 2 s floor.
	Extended bool `json:"extended,omitempty"`
	// NewPod is the pod started in this one's place (nil: none).
	NewPod *NewPod `json:"new_pod,omitempty"`
}

func init() { registerPart[Termination](actionParts, "termination", "before") }

// Termination is the emulated kubelet's termination (kind terminate;
// nil for the other kinds): the action's SentNs is its stop signal,
// sent when the pre-stop hook ended.
func (a Action) Termination() *Termination { return partOf[Termination](a.parts, "termination") }

// NewPod is the pod a rolling update started in the terminated pod's
// place: when it started, passed its readiness probe, became available
// and joined the proxy's upstreams.
type NewPod struct {
	// Name is its replica name; Upstream its dial address behind the
	// proxy (the UpstreamHeader of the responses it served, or failed).
	Name     string `json:"name"`
	Upstream string `json:"upstream"`
	// BeforeDeletion is true when the old pod's deletion waited for it
	// to be available.
	BeforeDeletion bool `json:"before_deletion,omitempty"`
	// StartedNs is when its container started; ReadyNs when its
	// readiness probe passed (StartedNs without one); AvailableNs
	// when it had been ready for minReadySeconds. 0: not reached.
	StartedNs   int64 `json:"started_ns"`
	ReadyNs     int64 `json:"ready_ns,omitempty"`
	AvailableNs int64 `json:"available_ns,omitempty"`
	// ReadinessProbes counts the readiness probes sent (Kubernetes'
	// readinessProbe, as the kubelet's prober runs it: not the raw-socket
	// probe); ReadinessProbesFailed those that did not pass. Their JSON
	// names, probes and probes_failed, are what results recorded.
	ReadinessProbes       int `json:"probes,omitempty"`
	ReadinessProbesFailed int `json:"probes_failed,omitempty"`
	// RegisterSentNs is when the proxy was told to add it (readiness +
	// the propagation delay); RegisteredNs when it acknowledged.
	RegisterSentNs int64 `json:"register_sent_ns,omitempty"`
	RegisteredNs   int64 `json:"registered_ns,omitempty"`
	// Error says why it never became ready or never joined.
	Error string `json:"error,omitempty"`
}
