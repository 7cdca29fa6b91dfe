package record

// Rollout is a rolling update of a Docker Swarm service (scenario
// platform swarm, action kind rollout) as the engine reported it: the
// service's tasks with the engine's states and timestamps, and its
// containers' engine events (start, kill with the signal, die with the
// exit code, health status). Nothing in it is inferred from the client
// side.
type Rollout struct {
	// Service and ServiceID name the service; EndpointMode is dnsrr or
	// vip; Network is the overlay network it and the load share.
	Service      string `json:"service"`
	ServiceID    string `json:"service_id"`
	EndpointMode string `json:"endpoint_mode"`
	Network      string `json:"network"`
	// SwarmCreated tells that this run initialised the swarm (and left it
	// afterwards unless another session held it).
	SwarmCreated bool `json:"swarm_created"`
	// The update policy as sent: Parallelism, DelayMs, Order
	// (start-first, stop-first), FailureAction, MonitorMs; the tasks' stop
	// settings: StopGracePeriodMs, StopSignal; their health check:
	// HealthCheck (readiness, liveness, none: the scenario's
	// action.rollout.healthcheck.check, recorded as "probe"),
	// HealthIntervalMs, HealthRetries.
	Parallelism       int     `json:"parallelism"`
	DelayMs           float64 `json:"delay_ms"`
	Order             string  `json:"order"`
	FailureAction     string  `json:"failure_action"`
	MonitorMs         float64 `json:"monitor_ms"`
	StopGracePeriodMs float64 `json:"stop_grace_period_ms"`
	StopSignal        string  `json:"stop_signal"`
	HealthCheck       string  `json:"probe"`
	HealthIntervalMs  float64 `json:"health_interval_ms,omitempty"`
	HealthRetries     int     `json:"health_retries,omitempty"`
	// Image is the new tasks' image when the rollout changed it; empty
	// for a forced update (same spec, new tasks).
	Image string `json:"image,omitempty"`
	// ForceUpdate is the new tasks' ForceUpdate counter: tasks with a
	// smaller one are the old generation.
	ForceUpdate uint64 `json:"force_update"`
	// AfterMs is the planned time of the update after load start; SentNs
	// just before the update call, ReturnedNs just after the engine
	// accepted it. SentNs 0: the update was never sent.
	AfterMs    float64 `json:"after_ms"`
	SentNs     int64   `json:"sent_ns"`
	ReturnedNs int64   `json:"returned_ns"`
	// Converged tells the runner saw every new task running and every old
	// one ended within the bound (action.rollout.timeout); ConvergedNs is
	// when. UpdateState and UpdateMessage are the engine's update status
	// then ("completed", "paused", ...).
	Converged     bool   `json:"converged"`
	ConvergedNs   int64  `json:"converged_ns,omitempty"`
	UpdateState   string `json:"update_state,omitempty"`
	UpdateMessage string `json:"update_message,omitempty"`
	// Tasks are every task the service had, oldest first.
	Tasks []SwarmTask `json:"tasks"`
	// Events are the service's container events from the engine, in
	// arrival order, from before the update until after convergence.
	// EventsError says why the stream broke, if it did.
	Events      []SwarmEvent `json:"events,omitempty"`
	EventsError string       `json:"events_error,omitempty"`
	// Proxy is how Caddy found the tasks (topology caddy): the DNS name
	// of its dynamic A upstreams and their refresh interval.
	ProxyDNS       string  `json:"proxy_dns,omitempty"`
	ProxyRefreshMs float64 `json:"proxy_refresh_ms,omitempty"`
	// Error is why the rollout could not be sent or followed, if so.
	Error string `json:"error,omitempty"`
}

func init() { registerPart[Rollout](metaParts, "rollout", "jobs") }

// Rollout is the Swarm rollout of a platform swarm run (nil otherwise).
func (m Meta) Rollout() *Rollout { return partOf[Rollout](m.parts, "rollout") }

// The task generations of a rollout.
const (
	// GenerationOld: a task of the spec before the update.
	GenerationOld = "old"
	// GenerationNew: a task of the updated spec.
	GenerationNew = "new"
)

// SwarmTask is one task of a rolled service.
type SwarmTask struct {
	// ID is the task id; Slot its replica slot; Generation old or new.
	ID         string `json:"id"`
	Slot       int    `json:"slot"`
	Generation string `json:"generation"`
	// DesiredState and State are the engine's at the end of the run;
	// Message and Err its words on the task.
	DesiredState string `json:"desired_state"`
	State        string `json:"state"`
	Message      string `json:"message,omitempty"`
	Err          string `json:"err,omitempty"`
	// CreatedNs is when the orchestrator created the task; StatusNs when
	// it reached State (engine timestamps, Unix ns).
	CreatedNs int64 `json:"created_ns"`
	StatusNs  int64 `json:"status_ns"`
	// ContainerID is its container; Upstream its address on the run's
	// network as the proxy names it ("10.0.1.5:8080"), which the load
	// agent's records carry in their upstream field.
	ContainerID string `json:"container_id,omitempty"`
	Upstream    string `json:"upstream,omitempty"`
	// StartedNs and FinishedNs are the container's own start and end
	// (engine inspect; 0 when unknown or still running); ExitCode its
	// exit code (nil while running or unknown).
	StartedNs  int64 `json:"started_ns,omitempty"`
	FinishedNs int64 `json:"finished_ns,omitempty"`
	ExitCode   *int  `json:"exit_code"`
	// SignalNs is the engine's first kill event for the container (the
	// stop signal, or the one a restart sent); Signal its number. KillNs
	// is a later SIGKILL's event (0: none): the grace period ran out.
	SignalNs int64 `json:"signal_ns,omitempty"`
	Signal   int   `json:"signal,omitempty"`
	KillNs   int64 `json:"kill_ns,omitempty"`
	// HealthyNs is the first "healthy" health event; Unhealthy counts the
	// "unhealthy" ones, UnhealthyNs the first of them.
	HealthyNs   int64 `json:"healthy_ns,omitempty"`
	Unhealthy   int   `json:"unhealthy,omitempty"`
	UnhealthyNs int64 `json:"unhealthy_ns,omitempty"`
	// Events are the container's lifecycle lines (the target's stdout).
	Events []Event `json:"events,omitempty"`
}

// SwarmEvent is one engine event of a service's container.
type SwarmEvent struct {
	// TimeNs is the engine's timestamp; Action create, start, kill, die,
	// "health_status: healthy", ...; Signal a kill's signal number;
	// ExitCode a die's exit code.
	TimeNs      int64  `json:"time_ns"`
	Action      string `json:"action"`
	ContainerID string `json:"container_id"`
	TaskID      string `json:"task_id,omitempty"`
	Signal      int    `json:"signal,omitempty"`
	ExitCode    *int   `json:"exit_code,omitempty"`
}
