package record

// Kubernetes is what a run on platform kubernetes observed of the cluster
// through its API, from before the load until the run's end: the pods of
// the target with their lifecycle, the namespace's events, and every
// change of the target Service's EndpointSlices. Each observation carries
// the time this host saw it (ObservedNs-style fields: the watch's arrival
// time, sub-millisecond, the clock the agent's records use) and, where the
// API states one, the server's own timestamp, which Kubernetes gives in
// whole seconds (RFC 3339). Nothing in it is inferred from the client
// side.
type Kubernetes struct {
	// Context and Server are the kubeconfig context and API server the
	// run used; Namespace the run's own namespace (created and deleted by
	// the run, labelled shutdownlab.run).
	Context   string `json:"context"`
	Server    string `json:"server"`
	Namespace string `json:"namespace"`
	// ServerVersion is the API server's version ("v1.34.4").
	ServerVersion string `json:"server_version,omitempty"`
	// Deployment and Service name the target's objects; ClusterIP is the
	// Service's address, which the load agent dials (its name resolves to
	// it in the agent's /etc/hosts: the run needs no cluster DNS).
	Deployment string `json:"deployment"`
	Service    string `json:"service"`
	ClusterIP  string `json:"cluster_ip"`
	// Images are the images the pods ran, as the pod specs named them
	// (after --registry: the registry's references).
	TargetImage string `json:"target_image"`
	AgentImage  string `json:"agent_image"`
	// Pods are every pod of the target the watch saw, in the order it
	// first saw them.
	Pods []KubePod `json:"pods"`
	// Events are the namespace's events, in arrival order.
	Events []KubeEvent `json:"events,omitempty"`
	// Endpoints are the target Service's endpoint changes, in arrival
	// order: one entry per endpoint whose conditions changed in an
	// EndpointSlice update, and one when it left every slice.
	Endpoints []KubeEndpoint `json:"endpoints,omitempty"`
	// WatchError says why a watch broke, if one did (the observations
	// after that moment are missing).
	WatchError string `json:"watch_error,omitempty"`
}

func init() { registerPart[Kubernetes](metaParts, "kubernetes", "rollout") }

// Kubernetes is what a platform kubernetes run observed of the cluster
// (nil on the other platforms).
func (m Meta) Kubernetes() *Kubernetes { return partOf[Kubernetes](m.parts, "kubernetes") }

// KubePod is one pod of the target as the API reported it over the run.
// Observed times are this host's (0: not seen); server times are the API's
// own, whole seconds (0: not given).
type KubePod struct {
	// Name, UID and IP identify it; Node is where it ran.
	Name string `json:"name"`
	UID  string `json:"uid"`
	IP   string `json:"ip,omitempty"`
	Node string `json:"node,omitempty"`
	// TemplateHash is its pod-template-hash label: pods of the
	// Deployment's template before the action share one.
	TemplateHash string `json:"template_hash,omitempty"`
	// FirstSeenNs is when the watch first saw it; CreatedNs the server's
	// creationTimestamp.
	FirstSeenNs int64 `json:"first_seen_ns"`
	CreatedNs   int64 `json:"created_ns,omitempty"`
	// RunningNs is when its container was first seen running, StartedAtNs
	// the server's state.running.startedAt.
	RunningNs   int64 `json:"running_ns,omitempty"`
	StartedAtNs int64 `json:"started_at_ns,omitempty"`
	// ReadyNs is when its Ready condition was first seen True; NotReadyNs
	// when it was first seen False after that.
	ReadyNs    int64 `json:"ready_ns,omitempty"`
	NotReadyNs int64 `json:"not_ready_ns,omitempty"`
	// DeletionSeenNs is when the watch first saw its deletionTimestamp
	// (the kubelet starts the termination then); DeletionNs is that
	// timestamp; GraceS its deletionGracePeriodSeconds.
	DeletionSeenNs int64 `json:"deletion_seen_ns,omitempty"`
	DeletionNs     int64 `json:"deletion_ns,omitempty"`
	GraceS         *int  `json:"grace_s,omitempty"`
	// TerminatedNs is when its container was first seen terminated;
	// FinishedAtNs the server's state.terminated.finishedAt (whole
	// seconds); ExitCode and Reason ("Completed", "Error", "OOMKilled")
	// the terminated state's.
	TerminatedNs int64  `json:"terminated_ns,omitempty"`
	FinishedAtNs int64  `json:"finished_at_ns,omitempty"`
	ExitCode     *int   `json:"exit_code"`
	Reason       string `json:"reason,omitempty"`
	// Restarts is its container's restartCount at the last observation.
	Restarts int `json:"restarts,omitempty"`
	// GoneNs is when the watch saw it removed from the API.
	GoneNs int64 `json:"gone_ns,omitempty"`
}

// KubeEvent is one event of the run's namespace (Killing,
// FailedPreStopHook, Unhealthy, Pulled, ...).
type KubeEvent struct {
	// ObservedNs is when the watch saw it (or saw its count rise);
	// TimeNs the server's time of its last occurrence (eventTime, else
	// lastTimestamp; whole seconds for the latter).
	ObservedNs int64 `json:"observed_ns"`
	TimeNs     int64 `json:"time_ns,omitempty"`
	// Type is Normal or Warning; Reason and Message the event's.
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
	// Kind and Name are its involved object ("Pod", "target-6b8f-x2k").
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Count is how many times it occurred by then.
	Count int `json:"count,omitempty"`
}

// KubeEndpoint is one change of one endpoint of the target Service,
// as an EndpointSlice watch saw it.
type KubeEndpoint struct {
	// ObservedNs is when the watch saw the change.
	ObservedNs int64 `json:"observed_ns"`
	// Pod is the endpoint's targetRef (the pod's name); IP its address.
	Pod string `json:"pod,omitempty"`
	IP  string `json:"ip"`
	// Ready, Serving and Terminating are its conditions after the
	// change (nil: not stated); Removed is true when it left every slice.
	Ready       *bool `json:"ready,omitempty"`
	Serving     *bool `json:"serving,omitempty"`
	Terminating *bool `json:"terminating,omitempty"`
	Removed     bool  `json:"removed,omitempty"`
}

// ExitUpperNs is the upper bound of the pod's container exit (0: it did
// not end). Kubernetes states finishedAt in whole seconds and the watch
// sees the termination after the kubelet reported it, so the exit lies
// between FinishedAtNs and the later of FinishedAtNs + 1 s and
// TerminatedNs; this is the earliest upper bound: the watch's sight, or
// the end of finishedAt's second when that is earlier.
func (p KubePod) ExitUpperNs() int64 {
	switch {
	case p.TerminatedNs == 0 && p.FinishedAtNs == 0:
		return 0
	case p.FinishedAtNs == 0:
		return p.TerminatedNs
	case p.TerminatedNs == 0:
		return p.FinishedAtNs + 1e9
	}
	return min(p.TerminatedNs, p.FinishedAtNs+1e9)
}
