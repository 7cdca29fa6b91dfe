package kube

import "time"

// MinimumGracePeriod is the kubelet's floor on the time between the stop
// signal and SIGKILL: "always give containers a minimal shutdown window to
// avoid unnecessary SIGKILLs" (pkg/kubelet/kuberuntime,
// minimumGracePeriodInSeconds = 2). When a pre-stop hook used up the grace
// period this is the documented one-off 2 s extension
// (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination).
const MinimumGracePeriod = 2 * time.Second

// Termination is the kubelet's schedule for stopping one container,
// every time relative to T0, the pod's deletion.
type Termination struct {
	// HookEnd is when the kubelet stops waiting for the pre-stop hook: its
	// end, or the grace period if it ran longer (it is then left running
	// in the container). Zero without a hook.
	HookEnd time.Duration
	// Signal is when the stop signal is sent: right after the hook.
	Signal time.Duration
	// Kill is when SIGKILL is sent if the container still runs.
	Kill time.Duration
	// Extended is true when the grace left after the hook was below
	// MinimumGracePeriod and was raised to it.
	Extended bool
}

// Schedule is the kubelet's termination of a container with grace period
// grace (terminationGracePeriodSeconds) whose pre-stop hook (hasHook)
// takes hookTook to return, following killContainer and
// executePreStopHook (pkg/kubelet/kuberuntime/kuberuntime_container.go):
//
//  1. the hook runs first, and only with a grace period above zero; the
//     kubelet waits for it at most the whole grace period;
//  2. the time it waited is taken from the grace period in whole seconds,
//     truncated (int64 of the seconds elapsed), so a hook of 2.9 s costs 2 s;
//  3. what is left is raised to MinimumGracePeriod if below it;
//  4. the runtime's StopContainer then sends the stop signal, and SIGKILL
//     when that remaining period has passed.
func Schedule(grace time.Duration, hasHook bool, hookTook time.Duration) Termination {
	var t Termination
	left := grace.Truncate(time.Second)
	if hasHook && left > 0 {
		waited := min(max(hookTook, 0), left)
		t.HookEnd = waited
		left -= waited.Truncate(time.Second)
	}
	if left < MinimumGracePeriod {
		left, t.Extended = MinimumGracePeriod, true
	}
	t.Signal = t.HookEnd
	t.Kill = t.Signal + left
	return t
}
