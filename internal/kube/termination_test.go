package kube

import (
	"testing"
	"time"
)

// TestSchedule pins the kubelet's termination rules, each case citing the
// rule of killContainer / executePreStopHook
// (pkg/kubelet/kuberuntime/kuberuntime_container.go) or the pod-lifecycle
// page it follows.
func TestSchedule(t *testing.T) {
	s := time.Second
	tests := []struct {
		rule                  string
		grace                 time.Duration
		hook                  bool
		took                  time.Duration
		hookEnd, signal, kill time.Duration
		extended              bool
	}{
		{"no hook: the stop signal at once, SIGKILL after the grace period", 30 * s, false, 0, 0, 0, 30 * s, false},
		{"the hook runs first; the signal follows it; the grace period counts from T0, hook included", 30 * s, true, 5 * s, 5 * s, 5 * s, 30 * s, false},
		{"the hook's time is taken in whole seconds, truncated: 2.9 s costs 2 s", 10 * s, true, 2900 * time.Millisecond, 2900 * time.Millisecond, 2900 * time.Millisecond, 2900*time.Millisecond + 8*s, false},
		{"a hook that overruns the grace period is waited for only that long, then the signal", 5 * s, true, 60 * s, 5 * s, 5 * s, 7 * s, true},
		{"what the hook leaves below 2 s is raised to 2 s (the one-off extension)", 5 * s, true, 4 * s, 4 * s, 4 * s, 6 * s, true},
		{"exactly 2 s left is not extended", 5 * s, true, 3 * s, 3 * s, 3 * s, 5 * s, false},
		{"grace period 0: no hook runs, the signal at once, SIGKILL 2 s later", 0, true, 10 * s, 0, 0, 2 * s, true},
		{"grace period 1 s without a hook: raised to 2 s", 1 * s, false, 0, 0, 0, 2 * s, true},
		{"a hook that returns at once costs nothing", 30 * s, true, 0, 0, 0, 30 * s, false},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got := Schedule(tt.grace, tt.hook, tt.took)
			want := Termination{HookEnd: tt.hookEnd, Signal: tt.signal, Kill: tt.kill, Extended: tt.extended}
			if got != want {
				t.Errorf("Schedule(%s, %v, %s) = %+v, want %+v", tt.grace, tt.hook, tt.took, got, want)
			}
		})
	}
}
