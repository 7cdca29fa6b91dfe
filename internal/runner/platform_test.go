package runner

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestPlatformChoice: the scenario's platform picks the implementation of
// the one run lifecycle; a Swarm scenario on an engine that cannot host a
// service (a fake) is an invalid run with the reason, nothing started.
func TestPlatformChoice(t *testing.T) {
	f := newFakeEngine(nil)
	r := newFakeRunner(t, f)
	docker := fakeVariant(t, "direct-inflight", time.Second)
	if p, err := newPlatform(&run{r: r, spec: docker.Spec}); err != nil || p.setUpParts() != (dockerPlatform{}).setUpParts() {
		t.Fatalf("docker scenario: platform %T, err %v", p, err)
	}
	sw := fakeVariant(t, "swarm-rollout", time.Second)
	m := r.runOnce(context.Background(), sw, 1, t.TempDir())
	if m.Valid || !strings.Contains(m.InvalidReason, "platform swarm needs a Docker engine") {
		t.Fatalf("swarm on a fake engine: valid %v, reason %q", m.Valid, m.InvalidReason)
	}
	if calls := f.Calls(); len(calls) != 0 {
		t.Errorf("engine calls for a run that could not begin: %q", calls)
	}
}
