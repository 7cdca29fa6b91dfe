package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/record"
)

// TestCollect reads back two replicas: the acted-on one ended as the
// action observed it, the other as the engine says; lifecycle events,
// logs, ledger and job log are saved and recorded; a file a target never
// wrote is no error; the agent's summary is kept.
func TestCollect(t *testing.T) {
	acted := happyReplica()
	acted.files = map[string]string{"/data/ledger.log": "r1-0\n\nr1-1\n", "/data/job.log": "step 1/2\nCOMMIT\n"}
	other := replica(nil)
	other.stderr = []string{"warning: x"}
	f := newFakeEngine(map[string]fakeScript{"replica-0": acted, "replica-1": other})
	x := newFakeRun(t, f, fakeVariant(t, "direct-inflight", 300*time.Millisecond, "replicas=2", "target.grace_period=7s"))
	ctx := context.Background()
	if err := x.act(ctx, time.Now().Add(-x.spec.Action.At.D())); err != nil {
		t.Fatal(err)
	}
	x.stream.Write([]byte(strings.ReplaceAll(startLine, "$NOW", "5") + "\n" + reqLine(0, "ok") + "\n" + summaryLine(1) + "\n"))
	if err := x.collect(ctx); err != nil {
		t.Fatalf("collect: %v", err)
	}
	if len(x.meta.Replicas) != 2 {
		t.Fatalf("%d replicas recorded, want 2", len(x.meta.Replicas))
	}
	r0, r1 := x.meta.Replicas[0], x.meta.Replicas[1]
	if !r0.Exited || *r0.ExitCode != 0 || r0.ExitedNs != x.obs.state.FinishedAt.UnixNano() {
		t.Errorf("replica-0 %+v: want the exit the action observed", r0)
	}
	if r1.Exited || r1.ExitCode != nil || r1.StopTimeoutS == nil || *r1.StopTimeoutS != 7 {
		t.Errorf("replica-1 %+v: want running, stop timeout 7", r1)
	}
	if got := eventNames(r0.Events); !slices.Equal(got, []string{"up", "signal"}) {
		t.Errorf("replica-0 events %v, want up, signal", got)
	}
	if !slices.Equal(r0.Ledger, []string{"r1-0", "r1-1"}) || !slices.Equal(r0.HandlerJobLog, []string{"step 1/2", "COMMIT"}) {
		t.Errorf("replica-0 ledger %q job log %q", r0.Ledger, r0.HandlerJobLog)
	}
	if r1.Ledger != nil || r1.HandlerJobLog != nil {
		t.Errorf("replica-1 wrote no files, got ledger %q job log %q", r1.Ledger, r1.HandlerJobLog)
	}
	for _, name := range []string{"app-replica-0.log", "app-replica-1.log", "replica-0-ledger.log", "replica-0-job.log"} {
		if _, err := os.Stat(filepath.Join(x.dir, name)); err != nil {
			t.Errorf("%s not saved: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(x.dir, "app-replica-1.log")); !strings.Contains(string(b), "warning: x") {
		t.Errorf("app-replica-1.log %q lacks the replica's stderr", b)
	}
	if x.meta.Agent == nil || x.meta.Agent.Started != 1 || x.meta.LoadEndNs != 2 {
		t.Errorf("agent summary %+v, load end %d", x.meta.Agent, x.meta.LoadEndNs)
	}
}

func eventNames(evs []record.Event) []string {
	var names []string
	for _, e := range evs {
		names = append(names, e.Event)
	}
	return names
}

// TestCollectErrors: an engine error reading one replica is returned
// (joined with the others) while every replica is still recorded.
func TestCollectErrors(t *testing.T) {
	for _, fail := range []string{"Inspect replica-0", "LogsAll replica-1", "CopyFileFrom replica-1"} {
		t.Run(fail, func(t *testing.T) {
			f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "replica-1": happyReplica()})
			x := newFakeRun(t, f, fakeVariant(t, "direct-inflight", time.Second, "replicas=2"))
			f.fail[fail] = errEngine
			err := x.collect(context.Background())
			if !errors.Is(err, errEngine) {
				t.Errorf("collect: %v, want the engine error", err)
			}
			if len(x.meta.Replicas) != 2 || x.meta.Replicas[1].Name != "replica-1" {
				t.Errorf("replicas %+v: want both recorded", x.meta.Replicas)
			}
		})
	}
}

// TestReadBackMissing: a file the target never wrote reads back as
// nothing, and writes nothing.
func TestReadBackMissing(t *testing.T) {
	f := newFakeEngine(map[string]fakeScript{"replica-0": replica(nil)})
	x := newFakeRun(t, f, fakeVariant(t, "direct-inflight", time.Second))
	lines, err := x.readBack(context.Background(), x.obj.replicas[0].ID, "/data/ledger.log", "replica-0-ledger.log")
	if lines != nil || err != nil {
		t.Errorf("readBack = %q, %v; want nothing", lines, err)
	}
	if _, err := os.Stat(filepath.Join(x.dir, "replica-0-ledger.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was saved for a missing file: %v", err)
	}
	if _, err := f.CopyFileFrom(context.Background(), x.obj.replicas[0].ID, "/x"); !errors.Is(err, docker.ErrNotFound) {
		t.Errorf("the fake's missing file is not ErrNotFound: %v", err)
	}
}
