package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// fakeImages is an imageSource that builds nothing.
type fakeImages struct{}

func (fakeImages) Go(_ context.Context, name, _ string) (string, error) { return name + ":fake", nil }
func (fakeImages) Caddy(context.Context) (string, error)                { return images.CaddyImageName + ":fake", nil }
func (fakeImages) Target(_ context.Context, t images.Target) (string, string, error) {
	return images.TargetImageName + ":fake", "go fake", nil
}

// noOverlap is an overlap lister on an engine nobody else uses.
type noOverlap struct{}

func (noOverlap) ContainerList(context.Context, client.ContainerListOptions) (client.ContainerListResult, error) {
	return client.ContainerListResult{}, nil
}

func (noOverlap) Events(context.Context, client.EventsListOptions) client.EventsResult {
	return client.EventsResult{} // nil channels: no event ever arrives
}

// newFakeRunner returns a Runner on the fake engine f, writing under a
// temp dir.
func newFakeRunner(t *testing.T, f *fakeEngine) *Runner {
	t.Helper()
	return &Runner{opts: Options{Out: t.TempDir(), Progress: Discard, Now: time.Now},
		eng: f, overlap: noOverlap{}, imgs: fakeImages{}}
}

// fakeVariant is the first variant of a catalog scenario with sets
// applied, its observation window shortened to window.
func fakeVariant(t *testing.T, name string, window time.Duration, sets ...string) scenarios.Variant {
	t.Helper()
	sc, err := scenarios.Find(name)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand(append([]string{"runs=1"}, sets...))
	if err != nil {
		t.Fatal(err)
	}
	v := vs[0]
	v.Spec.Observe.Window = scenarios.Duration(window)
	return v
}

// newFakeRun is a run of variant v on a fake runner whose replicas were
// started (and are up); the action has not happened yet.
func newFakeRun(t *testing.T, f *fakeEngine, v scenarios.Variant) *run {
	t.Helper()
	r := newFakeRunner(t, f)
	r.seq++
	x := &run{r: r, spec: v.Spec, dir: t.TempDir(), name: fmt.Sprintf("shutdownlab-fake-%d", r.seq),
		stream: newAgentStream(), target: targetImage{ref: "target:fake", runtime: "go fake"}}
	load, err := newLoadDriver(v.Spec.Load.Kind)
	if err != nil {
		t.Fatal(err)
	}
	x.load, x.stream.other = load, load.observe
	x.obj.labels = map[string]string{"shutdownlab.run": x.name}
	x.obj.network = x.name
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := x.startReplicas(ctx, x.obj.labels); err != nil {
		t.Fatalf("start replicas: %v", err)
	}
	t.Cleanup(func() { f.Sweep(context.Background(), nil) })
	return x
}

// upLine is a target's "up" lifecycle line.
const upLine = `{"ts_ns":$NOW,"event":"up","mode":"full"}`

// replica is a target that logs "up" and answers the signals in on.
func replica(on map[string]fakeReaction) fakeScript {
	return fakeScript{stdout: []string{upLine}, on: on}
}

// exitsOn answers sig by exiting with code after d.
func exitsOn(sig string, code int, d time.Duration) map[string]fakeReaction {
	return map[string]fakeReaction{sig: {after: d, code: code,
		stdout: []string{`{"ts_ns":$NOW,"event":"signal","signal":"terminated"}`}}}
}

// indexOf returns the index of the first call starting with prefix, -1
// if none.
func indexOf(calls []string, prefix string) int {
	for i, c := range calls {
		if strings.HasPrefix(c, prefix) {
			return i
		}
	}
	return -1
}
