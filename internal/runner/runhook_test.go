package runner

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// pidEngine answers Inspect with a fixed PID; nothing else is called.
type pidEngine struct {
	engine
	pid int
}

func (e pidEngine) Inspect(_ context.Context, id string) (docker.State, error) {
	return docker.State{ID: id, Running: true, Pid: e.pid}, nil
}

// hookLog is a run hook that logs what it is told, under its name, and
// ends with err.
type hookLog struct {
	name string
	log  *[]string
	view RunView
	err  error
}

func (h *hookLog) ReplicaStarted(ctx context.Context, c Replica) {
	pid, _ := h.view.ContainerPID(ctx, c.ContainerID)
	*h.log = append(*h.log, h.name+" started "+c.Name+" "+c.ContainerID+" pid "+strconv.Itoa(pid))
}

func (h *hookLog) LoadEnded(meta *record.Meta, dir string) error {
	*h.log = append(*h.log, h.name+" ended "+meta.Scenario+" "+dir)
	return h.err
}

// A run makes every registered hook that is in play, in the order of
// their names, tells those that listen of each replica and of the load's
// end, and returns the first hook's error once all were told.
func TestRunHooks(t *testing.T) {
	old := runHooks
	defer func() { runHooks = old }()
	runHooks = newRegistry[string, func(RunView) RunHook]("run hook")
	var log []string
	first, second := errors.New("first"), errors.New("second")
	RegisterRunHook("c", func(v RunView) RunHook { return &hookLog{name: "c", log: &log, view: v, err: second} })
	RegisterRunHook("b", func(RunView) RunHook { return nil }) // not in play
	RegisterRunHook("a", func(v RunView) RunHook { return &hookLog{name: "a", log: &log, view: v, err: first} })
	RegisterRunHook("d", func(RunView) RunHook { return struct{}{} }) // listens to nothing
	x := &run{r: &Runner{eng: pidEngine{pid: 7}, opts: Options{Progress: Discard}}, dir: "out",
		spec: scenarios.Spec{Name: "s"}, meta: record.Meta{Scenario: "s"}}
	x.caps.hooks = newRunHooks(x)
	if len(x.caps.hooks) != 3 {
		t.Fatalf("%d hooks, want 3 (b is not in play)", len(x.caps.hooks))
	}
	v := runView{x}
	if v.Scenario().Name != "s" || v.LoadStartNs() != 0 {
		t.Errorf("view: scenario %q, load start %d before a stream", v.Scenario().Name, v.LoadStartNs())
	}
	v.Logf("discarded")
	x.replicaStarted(context.Background(), "replica-0", "id0")
	if err := x.loadEnded(); err != first {
		t.Errorf("loadEnded = %v, want the first hook's error", err)
	}
	want := []string{"a started replica-0 id0 pid 7", "c started replica-0 id0 pid 7", "a ended s out", "c ended s out"}
	if !slices.Equal(log, want) {
		t.Errorf("hooks told %q, want %q", log, want)
	}
}
