package record

// Meta is what the runner writes as events.json for one run: everything about
// the run except the per-request records (records.jsonl). Report metrics are
// pure functions of a Meta and its records.
type Meta struct {
	// Scenario is the scenario name; Variant the variant label (for example
	// "mode=full"); Params the variant's parameter values.
	Scenario string            `json:"scenario"`
	Variant  string            `json:"variant"`
	Params   map[string]string `json:"params,omitempty"`
	// Run is the 1-based repetition index.
	Run int `json:"run"`

	// Valid is false when the run could not be measured; InvalidReason
	// says why (JSON "invalid", the name results have always been saved
	// with). An invalid run is never counted as a pass.
	Valid         bool   `json:"valid"`
	InvalidReason string `json:"invalid,omitempty"`
	// Incomplete marks a run cut short by the user (Ctrl-C).
	Incomplete bool `json:"incomplete,omitempty"`

	// SetupMs is the harness's time from the start of the run until load
	// started; TeardownMs its time from the end of observation until every
	// container and network was removed.
	SetupMs    float64 `json:"setup_ms"`
	TeardownMs float64 `json:"teardown_ms"`

	// LoadStartNs and LoadEndNs bound the load (Unix ns).
	LoadStartNs int64 `json:"load_start_ns"`
	LoadEndNs   int64 `json:"load_end_ns"`

	// Action is the stop action and when it fired (nil: none).
	Action *Action `json:"action,omitempty"`
	// Replicas are the target containers, in order.
	Replicas []Replica `json:"replicas"`
	// Agent is the load agent's summary line (nil if it never printed one).
	Agent *Summary `json:"agent,omitempty"`
	// LoadKind is LoadKindProbe ("probe") when a raw-socket probe drove
	// the run instead of the load agent; empty for the agent.
	LoadKind string `json:"load_kind,omitempty"`
	// Fingerprint describes the machine the run happened on.
	Fingerprint Fingerprint `json:"fingerprint"`

	// Topology is TopologyCaddy ("caddy") when the load went through the
	// Caddy reverse proxy; empty for the direct topology.
	Topology string `json:"topology,omitempty"`
	// ProxyConfig is the file name, in the run directory, of the exact
	// Caddy JSON configuration used (topology caddy only: "proxy.json");
	// ProxyConfigSHA256 its sha256 in hex.
	ProxyConfig       string `json:"proxy_config,omitempty"`
	ProxyConfigSHA256 string `json:"proxy_config_sha256,omitempty"`
	// Baseline marks a run of a scenario's steady-state baseline variant
	// (same load, no action).
	Baseline bool `json:"baseline,omitempty"`
	// Replacement is the replica a roll started in place of replica A
	// (nil: none). It is also the last entry of Replicas.
	Replacement *Replacement `json:"replacement,omitempty"`
	// OverlappedWith lists the session ids of other shutdownlab sessions
	// that had running containers on the same Docker engine while this run
	// was in progress (seen at its start, at its end, or starting in
	// between). Their load shared the machine, so this run's timings may
	// be disturbed; the run is not made invalid for it. Empty: none seen.
	OverlappedWith []string `json:"overlapped_with,omitempty"`

	// parts are the capabilities' records (parts.go): the probe's line
	// and the WebSocket totals after load_kind, the resource sampling,
	// the jobs producer's line and ledger and the Swarm rollout after
	// overlapped_with; each read through its accessor (m.Jobs()).
	parts map[string]any
}

// Replacement records when a roll's replacement replica started and became
// ready.
type Replacement struct {
	// Name is the replacement's alias on the scenario network.
	Name string `json:"name"`
	// Strategy is "start-first" or "stop-first".
	Strategy string `json:"strategy"`
	// StartedNs is just before the container was started; UpNs when it
	// logged its "up" event (0: never within the harness's wait).
	StartedNs int64 `json:"started_ns"`
	UpNs      int64 `json:"up_ns,omitempty"`
	// HealthyByNs is an upper bound on when the proxy saw it healthy: UpNs
	// plus one health-check interval (0 when it never came up).
	HealthyByNs int64 `json:"healthy_by_ns,omitempty"`
}

// Action records the stop action as it actually happened.
type Action struct {
	// Kind is ActionSignal ("signal": docker kill -s SIGNAL), ActionStop
	// ("stop": docker stop -t N) or ActionTerminate ("terminate": the
	// kubelet's termination, see Termination); a roll records how replica
	// A was stopped (its roll.via), with Roll set.
	Kind string `json:"kind"`
	// Roll is true when the action was a roll behind the proxy.
	Roll bool `json:"roll,omitempty"`
	// Signal is the signal name for Kind ActionSignal.
	Signal string `json:"signal,omitempty"`
	// StopTimeoutS is the -t value for Kind ActionStop (nil: the
	// container's own).
	StopTimeoutS *int `json:"stop_timeout_s,omitempty"`
	// Replica is the index of the replica acted on.
	Replica int `json:"replica"`
	// AfterMs is the planned delay after load start.
	AfterMs float64 `json:"after_ms"`
	// SentNs is the wall-clock time just before the engine call; ReturnedNs
	// just after it returned (docker stop returns only when the container
	// has exited). Zero SentNs means the action never fired.
	SentNs     int64 `json:"sent_ns"`
	ReturnedNs int64 `json:"returned_ns"`
	// Error is the engine's error, if the call failed.
	Error string `json:"error,omitempty"`
	// Kills are the engine's "kill" events for the acted-on replica from
	// just before the action until it was observed (the stop signal, then
	// SIGKILL when a grace period ran out). The daemon emits each one after
	// handing the signal to the process, so the first one is a measured
	// upper bound on when the signal arrived. Empty when the engine's event
	// stream was unavailable (KillsError says why).
	Kills      []Kill `json:"kills,omitempty"`
	KillsError string `json:"kills_error,omitempty"`
	// Before are the steps done to the same replica before the action
	// (scenario action.before: a crash, a signal), in order; the engine's
	// kill events they caused are theirs, not in Kills.
	Before []Step `json:"before,omitempty"`
	// Deregister is the proxy deregistration of a roll or a termination
	// with proxy.deregister_after (nil without one).
	Deregister *Deregistration `json:"deregister,omitempty"`
	// Again is the action's signal sent a second time (scenario
	// action.again; nil without one): what an impatient orchestrator or
	// operator does. Its kill events are its own.
	Again *Step `json:"again,omitempty"`

	// parts are the kinds' records (parts.go): terminate's Termination
	// after before, read through a.Termination().
	parts map[string]any
}

// Kill is one signal the engine reported delivering to a container.
type Kill struct {
	// TimeNs is the engine's timestamp of the event (Unix ns).
	TimeNs int64 `json:"time_ns"`
	// Signal is the signal number (15 SIGTERM, 9 SIGKILL, ...); 0 unknown.
	Signal int `json:"signal"`
}

// Replica is one target container and how it ended.
type Replica struct {
	// Name is the container's name on the scenario network.
	Name string `json:"name"`
	// Image is the image reference it ran.
	Image string `json:"image"`
	// Runtime names the target's runtime and version as far as known,
	// e.g. "go" or "node v20.20.2".
	Runtime string `json:"runtime,omitempty"`
	// Init tells whether it ran with --init.
	Init bool `json:"init"`
	// StopTimeoutS is the effective stop timeout read back from the
	// container's config (nil: the engine default applies and the config
	// does not say).
	StopTimeoutS *int `json:"stop_timeout_s"`
	// Exited is true when the container exited within the observation window.
	Exited bool `json:"exited"`
	// ExitCode is the exit code (nil when it never exited: NEVER).
	ExitCode *int `json:"exit_code"`
	// ExitedNs is the engine's FinishedAt (Unix ns), 0 when not exited.
	ExitedNs int64 `json:"exited_ns,omitempty"`
	// OOMKilled is the engine's OOMKilled flag.
	OOMKilled bool `json:"oom_killed,omitempty"`
	// Events are the app's lifecycle lines parsed from its stdout.
	Events []Event `json:"events,omitempty"`
	// HandlerJobLog is the target's HandlerJobFile read back after the run (one entry
	// per line).
	HandlerJobLog []string `json:"job_log,omitempty"`
	// Ledger is the target's LedgerFile read back after the run: request
	// ids.
	Ledger []string `json:"ledger,omitempty"`
	// Env is the environment the runner added to the replica's container:
	// for the built-in targets MODE, PORT, INSTANCE and the scenario's
	// target.env (CLOSE_SPREAD_MS, PRESTOP_MS, ...); for a user's image
	// only target.env (it runs with its own environment otherwise). A
	// variable absent here took the target's default; nil when the runner
	// did not record it (then nothing is assumed).
	Env map[string]string `json:"env,omitempty"`
	// EnvOverridden holds, for a user's image, the image's own values of
	// the variables Env replaced (nil when none was replaced).
	EnvOverridden map[string]string `json:"env_overridden,omitempty"`
}

// Fingerprint identifies the machine a run was measured on.
type Fingerprint struct {
	CPU           string `json:"cpu"`
	Cores         int    `json:"cores"`
	Kernel        string `json:"kernel"`
	OS            string `json:"os"`
	DockerVersion string `json:"docker_version"`
	DockerAPI     string `json:"docker_api"`
	GoVersion     string `json:"go_version"`
}
