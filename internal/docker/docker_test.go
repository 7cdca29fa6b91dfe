package docker_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
)

func TestMain(m *testing.M) {
	dockertest.PinTestcontainersEnv()
	os.Exit(m.Run())
}

// setup returns an engine, the hello image and a ctx bounded for the test.
func setup(t *testing.T) (*docker.Engine, string, context.Context) {
	t.Helper()
	eng := dockertest.RequireDocker(t)
	img := dockertest.HelloImage(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return eng, img, ctx
}

// run starts a container and registers its removal.
func run(t *testing.T, eng *docker.Engine, ctx context.Context, spec docker.ContainerSpec) *docker.Container {
	t.Helper()
	c, err := eng.Run(ctx, spec)
	if err != nil {
		t.Fatalf("Run %s: %v", spec.Name, err)
	}
	t.Cleanup(func() {
		if err := eng.Remove(context.Background(), c.ID); err != nil {
			t.Errorf("Remove: %v", err)
		}
	})
	return c
}

func TestInfo(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	info, err := eng.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("info: %+v (host %s)", info, eng.Host())
	if info.ServerVersion == "" || info.APIVersion == "" || info.Kernel == "" || info.NCPU < 1 {
		t.Errorf("incomplete info: %+v", info)
	}
	if info.Arch != "amd64" && info.Arch != "arm64" {
		t.Errorf("Arch = %q, want a GOARCH", info.Arch)
	}
	if info.ClientAPI == "" || info.ClientAPI > info.APIVersion && len(info.ClientAPI) == len(info.APIVersion) {
		t.Errorf("negotiated API %q, daemon API %q", info.ClientAPI, info.APIVersion)
	}
}

func TestUnreachable(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := docker.New(ctx)
	if err == nil || !strings.Contains(err.Error(), "Docker daemon unreachable at unix:///nonexistent/docker.sock") {
		t.Fatalf("New with a dead socket: %v", err)
	}
}

func TestRunInspectNetworkInit(t *testing.T) {
	eng, img, ctx := setup(t)
	net := eng.Session() + "-net"
	if _, err := eng.CreateNetwork(ctx, net, map[string]string{"shutdownlab.role": "test"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := eng.RemoveNetwork(context.Background(), net); err != nil {
			t.Errorf("RemoveNetwork: %v", err)
		}
	})
	three := 3
	withInit := run(t, eng, ctx, docker.ContainerSpec{
		Name: eng.Session() + "-init", Image: img, Network: net, Aliases: []string{"svc"},
		Init: true, StopTimeout: &three, Labels: map[string]string{"shutdownlab.role": "replica"},
	})
	noInit := run(t, eng, ctx, docker.ContainerSpec{Name: eng.Session() + "-noinit", Image: img, Network: net})
	for _, c := range []*docker.Container{withInit, noInit} {
		if err := eng.WaitLog(ctx, c.ID, `"event":"up"`, 20*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	st, err := eng.Inspect(ctx, withInit.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("inspect: %+v", st)
	if !st.Running || !st.Init || st.StopTimeout == nil || *st.StopTimeout != 3 {
		t.Errorf("with init: running=%v init=%v stopTimeout=%v", st.Running, st.Init, st.StopTimeout)
	}
	if st.StartedAt.IsZero() || !st.FinishedAt.IsZero() {
		t.Errorf("running container: StartedAt=%v FinishedAt=%v", st.StartedAt, st.FinishedAt)
	}
	if st.IP(net) == "" {
		t.Errorf("no IP on %s: %v", net, st.IPs)
	}
	want := map[string]string{docker.LabelManaged: "1", docker.LabelSession: eng.Session(), "shutdownlab.role": "replica"}
	for k, v := range want {
		if st.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, st.Labels[k], v)
		}
	}
	st2, err := eng.Inspect(ctx, noInit.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st2.Init || st2.StopTimeout != nil {
		t.Errorf("without init: init=%v stopTimeout=%v, want false, nil", st2.Init, st2.StopTimeout)
	}
	if _, err := eng.Inspect(ctx, "no-such-container-"+eng.Session()); !errors.Is(err, docker.ErrNotFound) {
		t.Errorf("Inspect of a missing container: %v, want ErrNotFound", err)
	}
}

// TestKillTerm checks a Go binary without a SIGTERM handler: as PID 1 the
// runtime exits 2; behind tini the process dies of the signal (143).
func TestKillTerm(t *testing.T) {
	eng, img, ctx := setup(t)
	for _, tc := range []struct {
		name string
		init bool
		code int
	}{{"pid1", false, 2}, {"tini", true, 143}} {
		t.Run(tc.name, func(t *testing.T) {
			c := run(t, eng, ctx, docker.ContainerSpec{Name: eng.Session() + "-" + tc.name, Image: img, Env: []string{"HANDLE=0"}, Init: tc.init})
			if err := eng.WaitLog(ctx, c.ID, `"event":"up"`, 20*time.Second); err != nil {
				t.Fatal(err)
			}
			sent := time.Now()
			if err := eng.Kill(ctx, c.ID, "SIGTERM"); err != nil {
				t.Fatal(err)
			}
			exited, st, err := eng.WaitExit(ctx, c.ID, 10*time.Second)
			if err != nil || !exited {
				t.Fatalf("WaitExit: exited=%v err=%v", exited, err)
			}
			t.Logf("exit %d, FinishedAt %s (%s after kill sent)", st.ExitCode, st.FinishedAt.Format(time.RFC3339Nano), st.FinishedAt.Sub(sent))
			if st.ExitCode != tc.code {
				t.Errorf("exit code %d, want %d", st.ExitCode, tc.code)
			}
			if st.FinishedAt.IsZero() || st.FinishedAt.Before(st.StartedAt) {
				t.Errorf("FinishedAt %v, StartedAt %v", st.FinishedAt, st.StartedAt)
			}
		})
	}
}

// TestNeverAndStop checks WaitExit's "never" answer for a container that
// ignores SIGTERM, then Stop -t 1 (SIGKILL after 1 s: code 137).
func TestNeverAndStop(t *testing.T) {
	eng, img, ctx := setup(t)
	c := run(t, eng, ctx, docker.ContainerSpec{Name: eng.Session() + "-stubborn", Image: img, Env: []string{"IGNORE_TERM=1"}})
	if err := eng.WaitLog(ctx, c.ID, `"event":"up"`, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := eng.Kill(ctx, c.ID, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	exited, st, err := eng.WaitExit(ctx, c.ID, 700*time.Millisecond)
	if err != nil || exited || !st.Running {
		t.Fatalf("WaitExit after ignored TERM: exited=%v running=%v err=%v, want NEVER", exited, st.Running, err)
	}
	if d := time.Since(t0); d < 600*time.Millisecond || d > 5*time.Second {
		t.Errorf("WaitExit window 700ms took %s", d)
	}
	one := 1
	t0 = time.Now()
	if err := eng.Stop(ctx, c.ID, &one); err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	exited, st, err = eng.WaitExit(ctx, c.ID, 5*time.Second)
	if err != nil || !exited || st.ExitCode != 137 {
		t.Fatalf("after Stop -t 1: exited=%v code=%d err=%v, want 137", exited, st.ExitCode, err)
	}
	t.Logf("Stop -t 1 took %s", took)
	if took < 900*time.Millisecond {
		t.Errorf("Stop -t 1 returned after %s: grace not honoured", took)
	}
}

func TestWaitLogFailures(t *testing.T) {
	eng, img, ctx := setup(t)
	c := run(t, eng, ctx, docker.ContainerSpec{Name: eng.Session() + "-fail", Image: img, Env: []string{"FAIL=3"}})
	err := eng.WaitLog(ctx, c.ID, `"event":"up"`, 20*time.Second)
	if err == nil || !strings.Contains(err.Error(), "exited with code 3") || !strings.Contains(err.Error(), "failing on purpose") {
		t.Fatalf("WaitLog on an exiting container: %v", err)
	}
	t.Logf("error: %v", err)
	stdout, stderr, err := eng.LogsAll(ctx, c.ID)
	if err != nil || !strings.Contains(string(stdout), "hello: starting") || strings.Contains(string(stdout), "failing") ||
		!strings.Contains(string(stderr), "failing on purpose") {
		t.Errorf("LogsAll: stdout=%q stderr=%q err=%v", stdout, stderr, err)
	}

	up := run(t, eng, ctx, docker.ContainerSpec{Name: eng.Session() + "-up", Image: img})
	t0 := time.Now()
	err = eng.WaitLog(ctx, up.ID, "never printed", 500*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "within 500ms") || !strings.Contains(err.Error(), `"event":"up"`) {
		t.Fatalf("WaitLog timeout: %v", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("WaitLog 500ms timeout took %s", d)
	}
}

func TestSweepSession(t *testing.T) {
	eng, img, ctx := setup(t)
	// Objects deliberately left for Sweep (no per-object cleanup).
	net := eng.Session() + "-sweep"
	if _, err := eng.CreateNetwork(ctx, net, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(ctx, docker.ContainerSpec{Name: eng.Session() + "-left", Image: img, Network: net}); err != nil {
		t.Fatal(err)
	}
	session := map[string]string{docker.LabelSession: eng.Session()}
	left, err := eng.Leftovers(ctx, session)
	if err != nil || len(left.Containers) != 1 || len(left.Networks) != 1 {
		t.Fatalf("Leftovers: %+v err=%v", left, err)
	}
	removed, err := eng.Sweep(ctx, session)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("swept: %s: %v %v", removed, removed.Containers, removed.Networks)
	if len(removed.Containers) != 1 || len(removed.Networks) != 1 {
		t.Errorf("Sweep removed %+v, want 1 container and 1 network", removed)
	}
	if left, _ := eng.Leftovers(ctx, session); !left.Empty() {
		t.Errorf("after Sweep: %+v", left)
	}
}

func TestBuildImageError(t *testing.T) {
	eng, _, ctx := setup(t)
	tarCtx := tarOf(t, map[string]string{"Dockerfile": "FROM scratch\nCOPY missing-file /x\n"})
	err := eng.BuildImage(ctx, tarCtx, "shutdownlab/test-broken:x", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "missing-file") {
		t.Fatalf("BuildImage with a bad Dockerfile: %v", err)
	}
	t.Logf("error: %v", err)
	if ok, err := eng.ImageExists(ctx, "shutdownlab/test-broken:x"); ok || err != nil {
		t.Errorf("ImageExists(broken) = %v, %v", ok, err)
	}
}

// TestLogsFollow streams a running container's logs until it exits.
func TestLogsFollow(t *testing.T) {
	eng, img, ctx := setup(t)
	c := run(t, eng, ctx, docker.ContainerSpec{Name: eng.Session() + "-logs", Image: img})
	if err := eng.WaitLog(ctx, c.ID, `"event":"up"`, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	done := make(chan error, 1)
	go func() { done <- eng.Logs(ctx, c.ID, true, &out, &errOut) }()
	time.Sleep(200 * time.Millisecond)
	if err := eng.Kill(ctx, c.ID, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Logs: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Logs(follow) did not return after the container exited")
	}
	if !strings.Contains(out.String(), `"event":"up"`) || !strings.Contains(out.String(), `"event":"term"`) {
		t.Errorf("followed stdout = %q", out.String())
	}
}

// TestRunStartFailureLeavesNothing: a container whose start fails is
// removed by Run (RequireDocker's cleanup reports leaks).
func TestRunStartFailureLeavesNothing(t *testing.T) {
	eng, img, ctx := setup(t)
	_, err := eng.Run(ctx, docker.ContainerSpec{Name: eng.Session() + "-bad", Image: img, Entrypoint: []string{"/no-such-binary"}})
	if err == nil || !strings.Contains(err.Error(), "container start") {
		t.Fatalf("Run with a missing entrypoint: %v", err)
	}
	t.Logf("error: %v", err)
	if left, err := eng.Leftovers(ctx, map[string]string{docker.LabelSession: eng.Session()}); err != nil || !left.Empty() {
		t.Errorf("after failed Run: %+v err=%v", left, err)
	}
	if _, err := eng.Run(ctx, docker.ContainerSpec{Image: "shutdownlab/no-such-image:x"}); !errors.Is(err, docker.ErrNotFound) {
		t.Errorf("Run of a missing image: %v, want ErrNotFound", err)
	}
}
