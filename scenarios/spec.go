// Package scenarios defines shutdownlab's scenario files: the YAML format,
// the Go Spec it decodes into, strict loading with file:line errors,
// validation, and the expansion of a scenario's variant matrix (plus --set
// overrides) into fully resolved, runnable Specs.
//
// The catalog of scenarios shipped with shutdownlab is embedded from
// catalog/*.yaml. Of shutdownlab it imports only budget (the shutdown
// budget audit) and record, whose wire names its kinds take: each kind
// that a run records is spelled once, there.
package scenarios

import (
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// Mode is the shutdown behaviour of the built-in Go target.
type Mode string

// The target modes (see docs/protocol.md, "Shutdown modes").
const (
	// ModeNone installs no SIGTERM handler at all.
	ModeNone Mode = "none"
	// ModeClose calls the stock http.Server.Shutdown with no deadline and
	// exits when it returns.
	ModeClose Mode = "close"
	// ModeFull runs the five-step graceful shutdown.
	ModeFull Mode = "full"
)

// Shape is the load shape.
type Shape string

// The load shapes.
const (
	// ShapeClosed runs Clients concurrent keep-alive clients, each sending
	// its next request when the previous one has ended.
	ShapeClosed Shape = "closed"
	// ShapeOpen schedules requests at a constant Rate onto Clients workers.
	ShapeOpen Shape = "open"
)

// ActionKind is how the target is told to stop.
type ActionKind string

// The action kinds.
const (
	// ActionSignal sends Action.Signal (docker kill -s SIGNAL).
	ActionSignal ActionKind = record.ActionSignal
	// ActionStop runs docker stop -t Action.Timeout: the image's stop signal,
	// a grace period, then SIGKILL.
	ActionStop ActionKind = record.ActionStop
	// ActionNone does nothing: a baseline run.
	ActionNone ActionKind = "none"
	// ActionRoll rolls replica A behind the proxy: stops it (Roll.Via) and
	// optionally starts a replacement (Roll.Replacement). Topology caddy
	// only.
	ActionRoll ActionKind = "roll"
)

// Spec is one fully described scenario run configuration: what target to
// start, what load to drive, what stop action to take and how long to watch.
// A Variant's Spec has defaults applied, --set overrides and the variant's
// values substituted, and has passed validation.
type Spec struct {
	// Name identifies the scenario (required). For catalog scenarios it
	// equals the file's base name. Letters, digits, '.', '_' and '-'.
	Name string `yaml:"name" json:"name"`
	// Description is one paragraph, shown by `shutdownlab list`.
	Description string `yaml:"description" json:"description,omitempty"`
	// Reproduces lists the published claims (P1..P12 in docs/claims.md) that
	// this scenario measures.
	Reproduces []string `yaml:"reproduces" json:"reproduces,omitempty"`
	// Runs is the number of repetitions per variant, 1..100 (default 3).
	Runs int `yaml:"runs" json:"runs"`
	// Target is the service under test.
	Target Target `yaml:"target" json:"target"`
	// Replicas is the number of target replicas started side by side,
	// 1..16 (default 1). The action hits one of them.
	Replicas int `yaml:"replicas" json:"replicas"`
	// Load is the client traffic driven at the target.
	Load LoadSpec `yaml:"load" json:"load"`
	// Action is the stop action and when it happens.
	Action Action `yaml:"action" json:"action"`
	// Observe says how long to watch after the action.
	Observe Observe `yaml:"observe" json:"observe"`
	// Topology is direct (default: the agent talks to replica 0) or caddy
	// (the agent talks to a Caddy reverse proxy in front of every
	// replica).
	Topology Topology `yaml:"topology" json:"topology"`
	// Proxy configures Caddy for topology caddy (not allowed otherwise).
	Proxy Proxy `yaml:"proxy" json:"proxy"`
	// Baseline adds one variant labelled "baseline": the base spec with
	// action kind none, run as many times as every other variant, so the
	// report can give p99 relative to the steady state (p99_vs_baseline).
	// The variants may then not vary load, replicas, topology or proxy.
	Baseline bool `yaml:"baseline" json:"baseline,omitempty"`
	// Platform is direct (default: the harness places each replica) or
	// swarm (a Swarm service; Swarm configures it). See platform.go.
	Platform Platform `yaml:"platform" json:"platform,omitempty"`
	// blocks are the platforms' settings blocks after platform (swarm:
	// platform.go), each read through its accessor (s.Swarm()) and set
	// with SetBlock; validation refuses all but Platform's
	// (kindblocks.go).
	blocks map[Platform]PlatformBlock
	// Expect lists expectations every variant must meet, in the language
	// of docs/expectations.md (e.g. "dropped_inflight == 0",
	// "exit_code == 0 @ 2/3"). The CLI checks them before anything runs
	// and adds those given with --expect.
	Expect []string `yaml:"expect" json:"expect,omitempty"`
	// Limits bounds the memory and processes of the harness's own
	// containers (load agent, services); nil: the defaults. See
	// HarnessLimits.
	Limits *HarnessLimits `yaml:"limits" json:"limits,omitempty"`
}

// Runtime is the language the built-in target is written in.
type Runtime string

// The target runtimes.
const (
	// RuntimeGo is the Go target (targetapp/, cmd/target).
	RuntimeGo Runtime = "go"
	// RuntimeNode is the Node target (targetapp/node/server.js), the
	// runtime the published measurements were taken on.
	RuntimeNode Runtime = "node"
)

// Target describes the built-in target container.
type Target struct {
	// Runtime is the target's language: go (default) or node. Both speak
	// the same protocol and modes; their shutdown differs (Go's stock
	// Shutdown answers Connection: close, Node's server.close() does not).
	Runtime Runtime `yaml:"runtime" json:"runtime"`
	// Mode is the shutdown mode: none, close or full (default full).
	Mode Mode `yaml:"mode" json:"mode"`
	// Init runs the container with `docker run --init`, so a tiny init is
	// PID 1 and forwards signals to the app (default false, as Docker).
	Init bool `yaml:"init" json:"init"`
	// StopTimeout is the grace period (key grace_period; stop_timeout is
	// its deprecated name and its JSON name): the container's StopTimeout,
	// in whole seconds. Nil leaves it to the engine's default (the runner
	// reports the value it reads back, never an assumed one).
	StopTimeout *Duration `yaml:"grace_period" json:"stop_timeout,omitempty"`
	// Env is extra environment for the target, for example DRAIN_MS,
	// PRESTOP_MS, KEEPALIVE_MS, SWEEP_MS. MODE and PORT are set by the
	// harness and may not appear here. Values are strings.
	Env map[string]string `yaml:"env" json:"env,omitempty"`
	// Entrypoint is exec (default: the app is the container's process) or
	// shell (the app runs behind /bin/sh -c, which does not forward
	// SIGTERM; see EntrypointShell).
	Entrypoint Entrypoint `yaml:"entrypoint" json:"entrypoint,omitempty"`
	// Image, when set, is a local image run instead of the built-in target
	// (never pulled). Runtime is then not the harness's to choose, and it
	// runs with its own environment plus Env only (no MODE, PORT or
	// INSTANCE).
	Image string `yaml:"image" json:"image,omitempty"`
	// Command, when set, replaces the image's ENTRYPOINT and Args its CMD,
	// as a Kubernetes container's command and args do (a command without
	// args drops the image's CMD too). Only with Image; nil runs the image
	// as it ships.
	Command []string `yaml:"command" json:"command,omitempty"`
	Args    []string `yaml:"args" json:"args,omitempty"`
	// Protocol is what the image speaks: its port, readiness path and
	// paths (default DefaultProtocol, the built-in targets' protocol).
	// Only with Image.
	Protocol Protocol `yaml:"protocol" json:"protocol"`
	// ReadyTimeout is how long each replica may take to become ready (the
	// built-in target's "up" line; GET protocol.ready_path answering 200)
	// before the run is invalid, MinReadyTimeout..MaxReadyTimeout (default
	// DefaultReadyTimeout). A replica that exits first ends the wait at once.
	ReadyTimeout Duration `yaml:"ready_timeout" json:"ready_timeout"`
	// Program is server (default) or a program a capability registers
	// (RegisterProgram; cluster: the Node cluster target, run as `node
	// /app/cluster.js`, runtime node only).
	Program Program `yaml:"program" json:"program,omitempty"`
}

// Bounds and default of target.ready_timeout.
const (
	DefaultReadyTimeout = Duration(30 * time.Second)
	MinReadyTimeout     = Duration(time.Second)
	MaxReadyTimeout     = Duration(10 * time.Minute)
)

// LoadSpec describes the traffic the load agent drives during a run.
type LoadSpec struct {
	// Shape is closed (default) or open.
	Shape Shape `yaml:"shape" json:"shape"`
	// Clients is the number of concurrent keep-alive clients (closed) or
	// workers (open), 1..1000 (default 20).
	Clients int `yaml:"clients" json:"clients"`
	// Rate is the open-loop request rate in requests per second; required
	// (> 0) for shape open, not allowed for shape closed.
	Rate float64 `yaml:"rate" json:"rate,omitempty"`
	// Duration is the total load time, > 0 and at most 1h (default 6s).
	Duration Duration `yaml:"duration" json:"duration"`
	// MaxRequests bounds the run in count, 1..10000000 (default 100000).
	MaxRequests int `yaml:"max_requests" json:"max_requests"`
	// Timeout is the per-request timeout (default 30s).
	Timeout Duration `yaml:"timeout" json:"timeout"`
	// FailPause is how long a closed-loop client waits after a request that
	// did not end ok before sending its next one, 0..1m (default 100ms).
	// The failed request is recorded as failed and never retried; the
	// pause only keeps a client facing a dead target from counting
	// refusals as fast as it can dial (a number that would measure the
	// client, not the service). Set 0 for a client that hammers.
	FailPause Duration `yaml:"fail_pause" json:"fail_pause"`
	// Stagger spreads the closed-loop clients' first requests evenly over
	// this span, 0..duration (default: one request period of the mix, see
	// LoadSpec.StaggerSpan). Clients with identical requests started
	// together stay in lockstep, so an action lands on a request boundary
	// and the verdict depends on timing luck; staggered, the requests in
	// flight at the action are at every stage of completion. 0s restores
	// lockstep.
	Stagger *Duration `yaml:"stagger" json:"stagger,omitempty"`
	// Mix is the weighted request mix (default: GET /slow?ms=300, weight 1).
	Mix []Request `yaml:"mix" json:"mix"`
	// Job, when set, starts one background job (GET /job) at Job.At after
	// load start, sent through the load agent.
	Job *Job `yaml:"job" json:"job,omitempty"`
	// Kind is agent (default: the load agent drives Clients clients),
	// probe (one raw-socket probe, configured by load.probe), ws
	// (long-lived WebSocket clients, load.ws), hostile (load.hostile) or
	// jobs (queue jobs on PostgreSQL, load.jobs); for the others the
	// agent-only fields above are not used and may not be given.
	Kind LoadKind `yaml:"kind" json:"kind,omitempty"`
	// blocks are the kinds' settings blocks the scenario gave (load.probe,
	// load.ws, …; validation refuses all but Kind's), each read through
	// its kind's accessor (websockets.LoadOf(l)) and set with SetBlock. Each kind's file
	// registers its block (loadblocks.go says how).
	blocks map[LoadKind]LoadBlock
}

// Request is one entry of the weighted request mix.
type Request struct {
	// Method is the HTTP method (default GET).
	Method string `yaml:"method" json:"method"`
	// Path is the request target including the query; starts with "/".
	Path string `yaml:"path" json:"path"`
	// Weight is the entry's relative frequency, >= 1 (default 1).
	Weight int `yaml:"weight" json:"weight"`
	// BodyBytes is the request body size, 0..1048576 (default 0).
	BodyBytes int `yaml:"body_bytes" json:"body_bytes,omitempty"`
}

// Job is one background job started via GET /job?steps=N&step_ms=M.
type Job struct {
	// Steps is the number of steps, 1..10000.
	Steps int `yaml:"steps" json:"steps"`
	// StepMS is the duration of one step in milliseconds, 0..600000.
	StepMS int `yaml:"step_ms" json:"step_ms"`
	// At is when to start the job, after load start; before load.duration.
	At Duration `yaml:"at" json:"at"`
}

// Action is the stop action taken during the load.
type Action struct {
	// Kind is signal (default), stop, roll, rollout, terminate or none.
	Kind ActionKind `yaml:"kind" json:"kind"`
	// Signal is the stop signal (key stop_signal; signal is its
	// deprecated name and its JSON name) sent for kind signal, or roll via
	// signal (default SIGTERM): one of Signals. Names without the SIG
	// prefix and in lower case are accepted and normalised.
	Signal string `yaml:"stop_signal" json:"signal,omitempty"`
	// Timeout is the grace period (key grace_period; timeout is its
	// deprecated name and its JSON name) of kind stop (or roll via stop):
	// docker stop -t, in whole seconds. Nil uses the container's own
	// (target.grace_period).
	Timeout *Duration `yaml:"grace_period" json:"timeout,omitempty"`
	// At is when the action happens, after load start; it must be before
	// load.duration so the action happens while load runs (default 3s).
	At Duration `yaml:"at" json:"at"`
	// Replica is the index of the replica acted on (default 0).
	Replica int `yaml:"replica" json:"replica"`
	// Roll says how kind roll stops replica A and replaces it.
	Roll Roll `yaml:"roll" json:"roll"`
	// blocks are the kinds' settings blocks after roll (action.rollout,
	// action.terminate: platform.go, terminate.go), each read through its
	// accessor (a.Terminate()) and set with SetBlock; validation refuses
	// all but Kind's (kindblocks.go).
	blocks map[ActionKind]ActionBlock
	// Before lists steps done to the same replica before the action, in
	// order (e.g. crash a cluster worker at 2s, then SIGTERM at 4s);
	// kinds signal and stop only.
	Before []Step `yaml:"before" json:"before,omitempty"`
	// Again sends the action's signal a second time this long after the
	// action fired (SIGTERM for kind stop, concurrently with the
	// blocking docker stop): an impatient orchestrator or operator.
	// Kinds signal and stop only; > 0 and before observe.window ends.
	Again *Duration `yaml:"again" json:"again,omitempty"`
}

// Observe describes what happens after the action.
type Observe struct {
	// Window is how long after the action to wait for the target to exit
	// before recording it as NEVER exited, > 0 and at most 10m (default 10s).
	Window Duration `yaml:"window" json:"window"`
}

// Defaults returns the Spec every scenario file is decoded onto: the one
// place defaults are set. Fields absent from the file keep these values.
func Defaults() Spec {
	return Spec{
		Runs:     3,
		Replicas: 1,
		Target: Target{Runtime: RuntimeGo, Mode: ModeFull, Entrypoint: EntrypointExec, Protocol: DefaultProtocol(),
			ReadyTimeout: DefaultReadyTimeout},
		Load: LoadSpec{
			Shape:       ShapeClosed,
			Clients:     20,
			Duration:    Seconds(6),
			MaxRequests: 100000,
			Timeout:     Seconds(30),
			FailPause:   Duration(100 * time.Millisecond),
			Mix:         []Request{defaultRequest("/slow?ms=300")},
			Kind:        LoadAgent,
		},
		Action:   Action{Kind: ActionSignal, At: Seconds(3), Roll: Roll{Via: ActionSignal, Replacement: ReplaceNone}},
		Observe:  Observe{Window: Seconds(10)},
		Topology: TopologyDirect,
		Proxy:    defaultProxy(),
	}
}

// defaultRequest is a mix entry's defaults; it is applied to every entry
// before the entry is decoded (see Request.UnmarshalYAML).
func defaultRequest(path string) Request {
	return Request{Method: "GET", Path: path, Weight: 1}
}

// UnmarshalYAML decodes a mix entry onto its defaults (method GET, weight 1).
func (r *Request) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Request
	*r = defaultRequest("")
	return unmarshal((*plain)(r))
}
