package runner

import (
	"context"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// A run hook is a capability's part in every run that is not a load kind
// (the resource sampler: capabilities/resources): a value made fresh for
// each run, which holds that capability's state in the run, and which the
// run's one lifecycle calls at fixed points through the optional methods
// it implements (ReplicaStarter, LoadEnder). The platforms whose replicas
// are containers of the engine the runner talks to call them (direct: a
// replica's container, swarm: a task's); Kubernetes' pods are not
// containers of it, and its runs call no hook.

// RunHook is a capability's state in one run, made by the function given
// to RegisterRunHook. The run calls those of the optional interfaces
// below that it implements; one implementing none is never called.
type RunHook any

// ReplicaStarter is a RunHook told of every target container as it starts.
type ReplicaStarter interface {
	// ReplicaStarted is called once a target container c started (before
	// it is up), from set-up, a new pod, a roll, or a rollout's poll: it
	// may be called concurrently and must not block for long.
	ReplicaStarted(ctx context.Context, c Replica)
}

// LoadEnder is a RunHook that acts once the load ended, before the load's
// own after-work (a ServiceDriver's AfterLoad) and the run's collection.
type LoadEnder interface {
	// LoadEnded ends the hook's work in the run (bounded) and records it:
	// in meta, the run's record, and files of its own in dir, the run's
	// result directory. Its error makes the run invalid, unless an
	// earlier one did.
	LoadEnded(meta *record.Meta, dir string) error
}

// Replica is a target container as a ReplicaStarter is told of it.
type Replica struct {
	// Name is the replica's name in the run's records: its alias
	// ("replica-0"), or a Swarm task's ("task-1", "task-1-new").
	Name string
	// ContainerID is its container's ID on the run's engine.
	ContainerID string
}

// RunView is what a RunHook sees of its run.
type RunView interface {
	// Scenario is the variant's scenario.
	Scenario() *scenarios.Spec
	// ContainerPID is the engine's PID of container id (0: not running),
	// or why the engine could not say.
	ContainerPID(ctx context.Context, id string) (int, error)
	// LoadStartNs is the load's start (its start line's time, Unix ns):
	// 0 until that line arrived.
	LoadStartNs() int64
	// Logf prints a progress line.
	Logf(format string, args ...any)
}

// runHooks are the registered run hooks' makers, by name.
var runHooks = newRegistry[string, func(RunView) RunHook]("run hook")

// RegisterRunHook registers run hook name, made fresh for each run by mk
// (nil: not in play in that run), from the init function of the
// capability's package. A name registered twice or empty panics at
// program start.
func RegisterRunHook(name string, mk func(RunView) RunHook) { runHooks.register(name, mk) }

// newRunHooks makes run x's hooks, in the order of their names.
func newRunHooks(x *run) []RunHook {
	var hooks []RunHook
	for _, name := range runHooks.keys() {
		mk, _ := runHooks.lookup(name)
		if h := mk(runView{x}); h != nil {
			hooks = append(hooks, h)
		}
	}
	return hooks
}

// replicaStarted tells the run's hooks that target container id started,
// under name.
func (x *run) replicaStarted(ctx context.Context, name, id string) {
	for _, h := range x.caps.hooks {
		if s, ok := h.(ReplicaStarter); ok {
			s.ReplicaStarted(ctx, Replica{Name: name, ContainerID: id})
		}
	}
}

// loadEnded tells the run's hooks that the load ended; the first error
// is returned once all were told.
func (x *run) loadEnded() error {
	var first error
	for _, h := range x.caps.hooks {
		if e, ok := h.(LoadEnder); ok {
			if err := e.LoadEnded(&x.meta, x.dir); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// runView is a run as a RunHook's RunView.
type runView struct{ x *run }

func (v runView) Scenario() *scenarios.Spec { return &v.x.spec }
func (v runView) ContainerPID(ctx context.Context, id string) (int, error) {
	st, err := v.x.r.eng.Inspect(ctx, id)
	return st.Pid, err
}
func (v runView) LoadStartNs() int64 {
	if v.x.stream == nil {
		return 0
	}
	return v.x.stream.LoadStart()
}
func (v runView) Logf(format string, args ...any) { v.x.r.opts.Progress.Logf(format, args...) }
