package scenarios

import (
	"strings"
	"testing"
	"time"
)

// TestTerminateBlock: kind terminate gets the kubelet's defaults, takes
// one hook handler, whole-second grace periods and a window that covers
// the grace period; its block and deregistration are refused elsewhere.
func TestTerminateBlock(t *testing.T) {
	ok := "name: t\nobserve: {window: 40s}\naction:\n  kind: terminate\n"
	tests := []struct {
		name, src string
		want      string // "" = valid
	}{
		{"defaults", ok, ""},
		{"sleep hook, stop signal", ok + "  terminate: {grace_period: 10s, stop_signal: quit, pre_stop: {sleep: 3s}}\n", ""},
		{"exec hook", ok + "  terminate: {pre_stop: {exec: [/app, prestop]}}\n", ""},
		{"http hook", ok + "  terminate: {pre_stop: {http_get: {path: /drain}}}\n", ""},
		{"two handlers", ok + "  terminate: {pre_stop: {sleep: 1s, exec: [x]}}\n", "needs exactly one of sleep, exec, http_get (has 2)"},
		{"no handler", ok + "  terminate: {pre_stop: {}}\n", "needs exactly one of sleep, exec, http_get (has 0)"},
		{"fractional grace", ok + "  terminate: {grace_period: 1500ms}\n", `action.terminate.grace_period: "1.5s": must be whole seconds`},
		{"unknown signal", ok + "  terminate: {stop_signal: SIGFOO}\n", `action.terminate.stop_signal: "SIGFOO": unknown signal`},
		{"relative path", ok + "  terminate: {pre_stop: {http_get: {path: drain}}}\n", `http_get.path: "drain": must start with /`},
		{"window shorter than the grace", "name: t\naction: {kind: terminate}\n", `observe.window: "10s": must cover action.terminate.grace_period and the kubelet's 2 s floor (at least 32s)`},
		{"block on another kind", "name: t\naction: {kind: stop, terminate: {grace_period: 5s}}\n", "action.terminate: only for kind terminate"},
		{"on swarm", "name: t\nplatform: swarm\nobserve: {window: 40s}\naction: {kind: terminate}\n", "platform swarm takes rollout or none"},
		{"deregistration from the deletion", "name: t\ntopology: caddy\nproxy: {deregister_after: 1s}\nobserve: {window: 40s}\naction: {kind: terminate}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantParse(t, tt.src, tt.want) })
	}
	sc, err := Parse("t.yaml", []byte(ok+"  terminate: {stop_signal: quit}\n"))
	if err != nil {
		t.Fatal(err)
	}
	te := sc.Spec.Action.Terminate()
	if te == nil || te.Grace.D() != 30*time.Second || te.StopSignal != "SIGQUIT" {
		t.Errorf("terminate block %+v, want grace 30s and SIGQUIT", te)
	}
}

// TestNewPodBlock: a termination's new pod needs the proxy it joins and
// the propagation delay; its readiness probe takes Kubernetes' defaults
// and is refused outside their ranges, naming the field.
func TestNewPodBlock(t *testing.T) {
	ok := "name: t\ntopology: caddy\nproxy: {deregister_after: 1s}\nobserve: {window: 40s}\naction:\n  kind: terminate\n  terminate:\n    new_pod: "
	tests := []struct {
		name, src string
		want      string // "" = valid
	}{
		{"no probe", ok + "{}\n", ""},
		{"probe and surge first", ok + "{before_deletion: true, min_ready: 2s, readiness: {path: /healthz, period: 1s}}\n", ""},
		{"no proxy", "name: t\nobserve: {window: 40s}\naction: {kind: terminate, terminate: {new_pod: {}}}\n", "action.terminate.new_pod: needs topology caddy"},
		{"no propagation delay", "name: t\ntopology: caddy\nobserve: {window: 40s}\naction: {kind: terminate, terminate: {new_pod: {}}}\n", "needs proxy.deregister_after"},
		{"relative path", ok + "{readiness: {path: healthz}}\n", `action.terminate.new_pod.readiness.path: "healthz": must start with /`},
		{"zero period", ok + "{readiness: {path: /, period: 0s}}\n", `readiness.period: "0s": must be positive`},
		{"threshold", ok + "{readiness: {path: /, success_threshold: 0}}\n", `readiness.success_threshold: "0": must be in 1..100`},
		{"timeout", ok + "{timeout: 0s}\n", `action.terminate.new_pod.timeout: "0s"`},
		{"negative min_ready", ok + "{min_ready: -1s}\n", `action.terminate.new_pod.min_ready: "-1s": must not be negative`},
		{"unknown field", ok + "{readines: {path: /}}\n", "readines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantParse(t, tt.src, tt.want) })
	}
	sc, err := Parse("t.yaml", []byte(ok+"{readiness: {path: /healthz}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	np := sc.Spec.Action.Terminate().NewPod
	if r := np.Readiness; np.Timeout.D() != DefaultNewPodTimeout || r.Period.D() != 10*time.Second || r.Timeout.D() != time.Second || r.SuccessThreshold != 1 {
		t.Errorf("new pod %+v, readiness %+v: want Kubernetes' defaults", np, r)
	}
}

// wantParse parses src and wants it valid (want "") or refused with an
// error containing want.
func wantParse(t *testing.T, src, want string) {
	t.Helper()
	_, err := Parse("t.yaml", []byte(src))
	if want == "" {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
}
