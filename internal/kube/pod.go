package kube

import "time"

// Kubernetes defaults the emulation applies where a manifest leaves a
// field out (k8s.io/api/core/v1 and apps/v1 field documentation).
const (
	// DefaultGracePeriod is terminationGracePeriodSeconds' default.
	DefaultGracePeriod = 30 * time.Second
	// DefaultProbePeriod, DefaultProbeTimeout, DefaultFailureThreshold
	// and DefaultSuccessThreshold are a probe's periodSeconds,
	// timeoutSeconds, failureThreshold and successThreshold defaults.
	DefaultProbePeriod      = 10 * time.Second
	DefaultProbeTimeout     = 1 * time.Second
	DefaultFailureThreshold = 3
	DefaultSuccessThreshold = 1
	// DefaultSurge and DefaultUnavailable are a Deployment's
	// rollingUpdate defaults.
	DefaultSurge       = "25%"
	DefaultUnavailable = "25%"
)

// Hook kinds of a pre-stop handler.
const (
	HookExec    = "exec"
	HookHTTPGet = "httpGet"
	HookSleep   = "sleep"
)

// Pod is what the kubelet would run for the chosen container of a
// workload, and how the workload's controller would roll it: everything
// the emulation takes from the manifest.
type Pod struct {
	// File is the manifest's path; Kind and Name the workload's.
	File, Kind, Name string
	// Container is the chosen container's name.
	Container string
	// Image is the container's image (a local image: never pulled).
	Image string
	// Command overrides the image's ENTRYPOINT and Args its CMD when
	// set, as the kubelet does; nil keeps the image's.
	Command, Args []string
	// Env are the container's literal env entries, in manifest order.
	Env []EnvVar
	// Ports are the container's declared ports.
	Ports []Port
	// PreStop is the container's pre-stop hook (nil: none).
	PreStop *Hook
	// StopSignal is lifecycle.stopSignal ("" keeps the image's
	// STOPSIGNAL, as the runtime does).
	StopSignal string
	// GracePeriod is terminationGracePeriodSeconds (DefaultGracePeriod
	// when unset).
	GracePeriod time.Duration
	// Readiness is the container's HTTP readiness probe (nil: none, or one
	// the emulation cannot run: see Unsupported).
	Readiness *Probe
	// Replicas is the workload's replica count (1 for a Pod).
	Replicas int
	// Strategy is how the workload rolls.
	Strategy Strategy
	// MinReady is minReadySeconds.
	MinReady time.Duration
	// Unsupported names, with the field, everything in the manifest the
	// emulation does not reproduce (other containers, init containers,
	// volumes, probes other than httpGet, ...): reported, never dropped
	// silently.
	Unsupported []string
}

// EnvVar is one literal environment entry.
type EnvVar struct{ Name, Value string }

// Port is one declared container port.
type Port struct {
	Name string
	Port int
}

// Hook is a pre-stop handler.
type Hook struct {
	// Kind is HookExec, HookHTTPGet or HookSleep.
	Kind string
	// Command is an exec hook's command.
	Command []string
	// Path, Port and Scheme are an httpGet hook's request.
	Path   string
	Port   int
	Scheme string
	// Sleep is a sleep hook's duration.
	Sleep time.Duration
}

// Probe is an httpGet readiness probe.
type Probe struct {
	Path         string
	Port         int
	InitialDelay time.Duration
	Period       time.Duration
	Timeout      time.Duration
	// FailureThreshold and SuccessThreshold are the consecutive
	// failures and successes that flip the pod's readiness.
	FailureThreshold, SuccessThreshold int
}

// Strategy is a workload's update strategy, resolved to pod counts.
type Strategy struct {
	// Kind is "RollingUpdate", "Recreate" (a Deployment), "OnDelete" (a
	// StatefulSet) or "" (a bare Pod: no rollout).
	Kind string
	// MaxSurge and MaxUnavailable are the rolling update's bounds in
	// pods (ResolveFenceposts).
	MaxSurge, MaxUnavailable int
}
