package runner_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/report"
)

// imagePaths declares the built-in protocol's paths for a test image.
const imagePaths = "target.protocol.paths=/slow,/write,/job"

// onlyRun runs a catalog scenario and returns its single run (valid or
// not) and how long RunScenario took.
func onlyRun(t *testing.T, r *runner.Runner, name string) (report.Run, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t0 := time.Now()
	oc, err := r.RunScenario(ctx, find(t, name))
	took := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := report.Load(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if oc.Runs != 1 || len(res.Variants) != 1 || len(res.Variants[0].Runs) != 1 {
		t.Fatalf("outcome %+v, want exactly one run", oc)
	}
	return res.Variants[0].Runs[0], took
}

// removeImage removes an image this test built.
func removeImage(t *testing.T, eng *docker.Engine, ref string) {
	t.Cleanup(func() {
		_, _ = eng.Client().ImageRemove(context.Background(), ref, client.ImageRemoveOptions{Force: true, PruneChildren: true})
	})
}

// TestBrokenImageExitsAtOnce: an --image whose process exits with code 3
// at start-up makes the run invalid as soon as the exit is seen (it took
// 30-34 s and blamed the load agent's missing start line), with the exit
// code and the image's last lines in the reason. The run also records the
// other shutdownlab session whose container was running meanwhile.
func TestBrokenImageExitsAtOnce(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root, err := images.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ref, _, err := images.Build(ctx, eng, images.Spec{Name: "shutdownlab/test-crash", Package: "./internal/runner/testdata/crash", ModuleDir: root})
	if err != nil {
		t.Fatal(err)
	}
	removeImage(t, eng, ref)
	other := otherSession(t, ctx)

	r := newRunner(t, "runs=1", "target.image="+ref, imagePaths, "load.duration=2s", "action.at=1s")
	run, took := onlyRun(t, r, "direct-inflight")
	t.Logf("broken image: INVALID after %s: %s", took.Round(time.Millisecond), run.Reason)
	for _, want := range []string{"replica-0 exited with code 3 before it was ready", "crash: fatal: no configuration at /etc/app.conf", "start-up step 12"} {
		if run.Valid || !strings.Contains(run.Reason, want) {
			t.Errorf("run valid=%v reason %q; want invalid, with %q", run.Valid, run.Reason, want)
		}
	}
	if strings.Contains(run.Reason, "start-up step 3 |") || strings.Contains(run.Reason, "start line") {
		t.Errorf("reason %q: want the last lines only, and not the agent's start line", run.Reason)
	}
	if !contains(run.Meta.OverlappedWith, other) {
		t.Errorf("overlapped_with %q, want the other session %s", run.Meta.OverlappedWith, other)
	}
}

// otherSession starts a container of another shutdownlab session (the
// built target image, which keeps running) and returns that session id.
func otherSession(t *testing.T, ctx context.Context) string {
	t.Helper()
	id := fmt.Sprintf("overlaptest%d", time.Now().UnixNano()%1e6)
	eng2, err := docker.New(ctx, docker.WithSession(id))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = eng2.Sweep(cctx, map[string]string{docker.LabelSession: id})
		eng2.Close()
	})
	target, _, err := images.BuildProject(ctx, eng2, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng2.Run(ctx, docker.ContainerSpec{Name: id + "-target", Image: target}); err != nil {
		t.Fatal(err)
	}
	return id
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestImageWithoutEntrypoint: an image whose entrypoint does not exist
// (docker run would exit 127) fails at container start; the run is invalid
// at once with the engine's words.
func TestImageWithoutEntrypoint(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ref, _, err := images.BuildScratch(ctx, eng, images.ScratchSpec{Name: "shutdownlab/test-noentry",
		Files: []images.File{{Path: "etc/placeholder", Mode: 0o644, Data: []byte("x\n")}}, Entrypoint: []string{"/app"}})
	if err != nil {
		t.Fatal(err)
	}
	removeImage(t, eng, ref)
	r := newRunner(t, "runs=1", "target.image="+ref, imagePaths, "load.duration=2s", "action.at=1s")
	run, took := onlyRun(t, r, "direct-inflight")
	t.Logf("no entrypoint: INVALID after %s: %s", took.Round(time.Millisecond), run.Reason)
	if run.Valid || !strings.Contains(run.Reason, "replica-0") || !strings.Contains(run.Reason, "/app") {
		t.Errorf("run valid=%v reason %q; want invalid, naming replica-0 and the missing /app", run.Valid, run.Reason)
	}
}

// TestReadyPathNeverOK: the image runs but its ready path never answers
// 200 (here: the built target asked for a path it answers 404 on). With
// target.ready_timeout 3s the run is invalid after about 3 s, and the
// reason says what the ready path answered.
func TestReadyPathNeverOK(t *testing.T) {
	r := newRunner(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ref, _, err := images.BuildProject(ctx, r.Engine(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	r2 := newRunner(t, "runs=1", "target.image="+ref, imagePaths, "target.protocol.ready_path=/not-there",
		"target.ready_timeout=3s", "load.duration=2s", "action.at=1s")
	run, took := onlyRun(t, r2, "direct-inflight")
	t.Logf("ready path 404: INVALID after %s: %s", took.Round(time.Millisecond), run.Reason)
	for _, want := range []string{"load agent exited with code 3 before the load started", "after 3s", "GET /not-there: 404"} {
		if run.Valid || !strings.Contains(run.Reason, want) {
			t.Errorf("run valid=%v reason %q; want invalid, with %q", run.Valid, run.Reason, want)
		}
	}
}

// TestFullDiskDoesNotHang: results on a tiny tmpfs that fills up during
// the load. The run stops, is invalid with the reason, every container and
// the network are removed (newRunner checks), and RunScenario returns with
// the error of the events.json it could not write. It hung for good
// before: the records consumer stopped reading and the log stream blocked.
func TestFullDiskDoesNotHang(t *testing.T) {
	dockertest.RequireDocker(t)
	out := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", out).Run(); err != nil {
		t.Skipf("mounting a 64 KB tmpfs needs root: %v", err)
	}
	t.Cleanup(func() { _ = exec.Command("umount", out).Run() })
	var outcome string
	ro, err := runner.New(context.Background(), runner.Options{Out: out, Sets: []string{"runs=1", "target.mode=full", "load.duration=15s", "action.at=12s"},
		Progress: endCapture{Progress: runner.NewProgress(os.Stderr), outcome: &outcome}})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t0 := time.Now()
	oc, err := ro.RunScenario(ctx, find(t, "direct-inflight"))
	took := time.Since(t0)
	t.Logf("full disk: RunScenario returned after %s: outcome %+v, err %v", took.Round(time.Millisecond), oc, err)
	if oc.Runs != 1 || oc.Invalid != 1 {
		t.Errorf("outcome %+v, want 1 invalid run", oc)
	}
	if !strings.HasPrefix(outcome, "INVALID: writing ") || !strings.HasSuffix(outcome, ": no space left on device") {
		t.Errorf("run outcome %q, want INVALID: writing <file>: no space left on device", outcome)
	}
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("err %v, want the events.json write failing for lack of space", err)
	}
	if took > 60*time.Second {
		t.Errorf("took %s for a 15 s load: the run should stop when the disk is full", took)
	}
	left, lerr := ro.Engine().Leftovers(ctx, map[string]string{docker.LabelSession: ro.Engine().Session()})
	if lerr != nil || !left.Empty() {
		t.Errorf("left behind: %v %v", left, lerr)
	}
	if tmp, _ := filepath.Glob(filepath.Join(out, "*", "*", "run-001", "*.tmp")); len(tmp) > 0 {
		t.Errorf("half-written files left: %q", tmp)
	}
}

// endCapture is a Progress that keeps the last run outcome line.
type endCapture struct {
	runner.Progress
	outcome *string
}

func (p endCapture) RunEnd(outcome string) {
	*p.outcome = outcome
	p.Progress.RunEnd(outcome)
}
