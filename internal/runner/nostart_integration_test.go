package runner_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/runner"
)

// TestMissingImageWritesNothing: a scenario that cannot start (its image is
// not on the engine) fails before anything is written: no result
// directory, no scenario.yaml, Outcome.Dir empty. It used to leave a result
// directory with nothing measured in it.
func TestMissingImageWritesNothing(t *testing.T) {
	newRunner(t) // builds the images, checks nothing is left behind
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := runner.New(ctx, runner.Options{Out: out, Progress: runner.Discard,
		Sets: []string{"runs=1", "target.image=shutdownlab/does-not-exist:none", "target.protocol.paths=/slow"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	oc, err := r.RunScenario(ctx, find(t, "direct-inflight"))
	if err == nil || !strings.Contains(err.Error(), "not present on this Docker engine") {
		t.Errorf("err %v, want the missing image named", err)
	}
	if oc.Dir != "" || oc.Runs != 0 {
		t.Errorf("outcome %+v, want no result directory and no run", oc)
	}
	if ents, _ := os.ReadDir(out); len(ents) > 0 {
		t.Errorf("%s holds %d entries (%s...), want nothing written", out, len(ents), ents[0].Name())
	}
}
