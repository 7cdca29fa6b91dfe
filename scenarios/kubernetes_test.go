package scenarios

import (
	"strings"
	"testing"
)

// TestKubernetesValidation: platform kubernetes takes the load agent
// dialling the Service, rollout and terminate; each misuse is refused
// with its field and the reason.
func TestKubernetesValidation(t *testing.T) {
	const base = "name: t\nplatform: kubernetes\nreplicas: 2\naction:\n  kind: rollout\n  at: 1s\n"
	const term = "name: t\nplatform: kubernetes\nreplicas: 2\nobserve: {window: 40s}\naction:\n  kind: terminate\n  at: 1s\n"
	tests := []struct {
		name string
		src  string
		want []string // substrings, one per expected error
	}{
		{"rollout defaults", base, nil},
		{"rollout of a user image with a readiness probe", base + "target: {image: my/app:1, protocol: {port: 3000, ready_path: /healthz, paths: [/]}}\nload: {mix: [{method: GET, path: /}]}\n", nil},
		{"terminate with a hook", term + "  terminate: {grace_period: 10s, pre_stop: {sleep: 2s}}\n", nil},
		{"manifest and image", base + "kubernetes: {manifest: d.yaml, image: my/app:2}\n", nil},
		{"caddy", base + "topology: caddy\n", []string{"topology: \"caddy\": platform kubernetes takes direct"}},
		{"signal", "name: t\nplatform: kubernetes\naction: {kind: signal}\n", []string{"platform kubernetes takes rollout or terminate or none (the kubelet stops its pods itself)"}},
		{"grace_period", base + "target: {grace_period: 5s}\n", []string{"the grace period is action.rollout.grace_period or action.terminate.grace_period"}},
		{"init", base + "target: {init: true}\n", []string{"target.init"}},
		{"delay", base + "  rollout: {delay: 2s}\n", []string{"action.rollout.delay"}},
		{"rollback", base + "  rollout: {failure_action: rollback}\n", []string{"action.rollout.failure_action"}},
		{"new pod", term + "  terminate: {new_pod: {timeout: 10s}}\n", []string{"the Deployment controller starts the new pod itself"}},
		{"image without manifest", base + "kubernetes: {image: my/app:2}\n", []string{"kubernetes.image"}},
		{"kubernetes block on swarm", "name: t\nplatform: swarm\nkubernetes: {}\naction: {kind: rollout, at: 1s}\n", []string{"kubernetes: only for platform kubernetes"}},
		{"jobs", base + "load: {kind: jobs}\n", []string{"load.jobs: required", "load.kind: \"jobs\": platform kubernetes drives the load agent only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errLines(t, tt.src)
			if len(got) != len(tt.want) {
				t.Fatalf("errors %q, want %d matching %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("error %q does not contain %q", got[i], w)
				}
			}
		})
	}
}
