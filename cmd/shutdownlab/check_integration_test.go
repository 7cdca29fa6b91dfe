package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/images"
)

// The tests in this file run `shutdownlab check` end to end (Docker) on
// fixtures whose shutdown is known, and assert its verdict, its exit code
// (check is a gate) and what its signal search recommends.

// checkFixture runs check with args on image and returns its exit code,
// stdout, and the verdict.txt it wrote.
func checkFixture(t *testing.T, ctx context.Context, image string, args ...string) (int, string, string) {
	t.Helper()
	out := t.TempDir()
	code, stdout, stderr := runMain(t, ctx, append([]string{"check", image, "--out", out}, args...)...)
	t.Logf("check %s exit %d:\n%s\nstderr:\n%s", image, code, stdout, stderr)
	files, _ := filepath.Glob(filepath.Join(out, "*-check-*", "verdict.txt"))
	if len(files) != 1 {
		t.Fatalf("verdict.txt files %q, want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return code, stdout, string(b)
}

// TestCheckRestartOnTerm: a server that re-executes itself on SIGTERM
// (internal/images/testdata/reexec: keeps PID 1, cuts the requests in
// flight, serves new connections; graceful on SIGINT) is diagnosed "the
// stop signal restarts the server", never advised a longer grace period,
// and the signal search recommends SIGINT, the signal that measured clean.
func TestCheckRestartOnTerm(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	t.Chdir("../..")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	ref, _, err := images.Build(ctx, eng, images.Spec{Name: "shutdownlab/test-reexec", Package: "./internal/images/testdata/reexec"})
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, verdict := checkFixture(t, ctx, ref, "--path", "/slow?ms=300", "--grace", "4s",
		"--signals", "SIGQUIT,SIGINT", "--set", "load.duration=4s", "--set", "action.at=2s", "--junit", filepath.Join(t.TempDir(), "check.xml"))
	if code != exitFailed {
		t.Errorf("exit %d, want %d (a defect)", code, exitFailed)
	}
	for _, want := range []string{"the stop signal restarts the server", "SIGINT: clean: exit 0", "STOPSIGNAL SIGINT: measured clean"} {
		if !strings.Contains(verdict, want) {
			t.Errorf("verdict lacks %q", want)
		}
	}
	if strings.Contains(verdict, "grace period of at least") || strings.Contains(verdict, "give it a grace period") {
		t.Errorf("a restart was advised a longer grace period")
	}
	if !strings.Contains(stdout, verdict) {
		t.Errorf("verdict.txt differs from the printed verdict")
	}
}

// TestCheckNginxFastShutdown: Debian's nginx put in an image as-is (no
// STOPSIGNAL: docker stop sends SIGTERM, nginx's documented fast
// shutdown) drops its in-flight requests: check exits 1, and its search
// recommends SIGQUIT, nginx's documented graceful shutdown
// (https://nginx.org/en/docs/control.html), by measurement. --report-only
// keeps exit 0 with the same verdict.
func TestCheckNginxFastShutdown(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	ref, _, err := images.StockFixture(ctx, eng, "nginx", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..")
	code, _, verdict := checkFixture(t, ctx, ref, "--path", "/slow?ms=300", "--grace", "5s", "--signals", "SIGQUIT")
	if code != exitFailed {
		t.Errorf("exit %d, want %d (a defect)", code, exitFailed)
	}
	for _, want := range []string{"drops in-flight work: yes", "SIGQUIT: clean", "STOPSIGNAL SIGQUIT: measured clean"} {
		if !strings.Contains(verdict, want) {
			t.Errorf("verdict lacks %q", want)
		}
	}
}
