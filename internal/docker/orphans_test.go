package docker_test

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// TestCleanOrphansSparesLiveSession: clean removes the objects of an owner
// that is gone (a dead pid, or a live pid with another start time) and
// keeps those of a live owner (this test process), listing them as
// skipped. The cleanup is restricted to this test's own label, so it never
// touches anyone else's objects on a shared daemon.
func TestCleanOrphansSparesLiveSession(t *testing.T) {
	live, img, ctx := setup(t) // owner: this process, alive
	tag := map[string]string{"shutdownlab.test": live.Session()}

	// A pid that is gone: a child that has exited and been reaped.
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	me := docker.CurrentOwner()
	deadOwner := docker.Owner{Host: me.Host, PID: child.Process.Pid, Start: "1"}
	reusedOwner := docker.Owner{Host: me.Host, PID: me.PID, Start: me.Start + "0"} // our pid, another start time
	dead := engineAs(t, ctx, live.Session()+"-dead", deadOwner)
	reused := engineAs(t, ctx, live.Session()+"-reused", reusedOwner)

	liveC := run(t, live, ctx, docker.ContainerSpec{Name: live.Session() + "-live", Image: img, Labels: tag})
	deadNet := dead.Session() + "-net"
	if _, err := dead.CreateNetwork(ctx, deadNet, tag); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*docker.Engine{dead, reused} {
		if _, err := e.Run(ctx, docker.ContainerSpec{Name: e.Session() + "-c", Image: img, Labels: tag}); err != nil {
			t.Fatal(err)
		}
	}

	cleaner := engineAs(t, ctx, live.Session()+"-cleaner", me)
	rep, err := cleaner.CleanOrphans(ctx, docker.CleanOptions{Match: tag})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("clean:\n%s", rep)
	wantGone := []string{dead.Session() + "-c", reused.Session() + "-c"}
	for _, n := range wantGone {
		if !slices.Contains(rep.Removed.Containers, n) {
			t.Errorf("orphan %s not removed: %v", n, rep.Removed.Containers)
		}
	}
	if !slices.Contains(rep.Removed.Networks, deadNet) {
		t.Errorf("orphan network %s not removed: %v", deadNet, rep.Removed.Networks)
	}
	if slices.Contains(rep.Removed.Containers, liveC.Name) {
		t.Fatalf("the live session's container %s was removed", liveC.Name)
	}
	i := slices.IndexFunc(rep.Skipped, func(s docker.Skipped) bool { return s.Name == liveC.Name })
	if i < 0 || !strings.Contains(rep.Skipped[i].Reason, "is alive") {
		t.Errorf("live container not listed as skipped because its owner is alive: %+v", rep.Skipped)
	}
	if st, err := live.Inspect(ctx, liveC.ID); err != nil || !st.Running {
		t.Errorf("live container after clean: %+v, %v", st, err)
	}
	for _, e := range []*docker.Engine{dead, reused} {
		if left, err := e.Leftovers(ctx, map[string]string{docker.LabelSession: e.Session()}); err != nil || !left.Empty() {
			t.Errorf("session %s left %+v (%v)", e.Session(), left, err)
		}
	}
}

// engineAs connects an Engine with the given session and owner and sweeps
// its session at the end of the test.
func engineAs(t *testing.T, ctx context.Context, session string, o docker.Owner) *docker.Engine {
	t.Helper()
	e, err := docker.New(ctx, docker.WithSession(session), docker.WithOwner(o))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := e.Sweep(cctx, map[string]string{docker.LabelSession: e.Session()}); err != nil {
			t.Errorf("sweep %s: %v", e.Session(), err)
		}
		e.Close()
	})
	return e
}
