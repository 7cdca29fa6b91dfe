package runner

import (
	"slices"
	"testing"
	"time"
)

// TestClusterEntrypoint: a cluster scenario's replicas run node
// /app/cluster.js; every other target keeps the image's entrypoint.
func TestClusterEntrypoint(t *testing.T) {
	for _, tt := range []struct {
		scenario string
		want     []string
	}{
		{"cluster-gated", []string{"node", "/app/cluster.js"}},
		{"signal-delivery", nil}, // the Node target's server.js
		{"direct-inflight", nil}, // the Go target
	} {
		f := newFakeEngine(map[string]fakeScript{"replica-0": replica(nil)})
		x := newFakeRun(t, f, fakeVariant(t, tt.scenario, time.Second))
		c, err := f.get(x.replicas[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.spec.Entrypoint; !slices.Equal(got, tt.want) {
			t.Errorf("%s: entrypoint %q, want %q", tt.scenario, got, tt.want)
		}
	}
}
