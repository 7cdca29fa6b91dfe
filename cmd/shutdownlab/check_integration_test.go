package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	code, stdout, verdict := checkFixture(t, ctx, ref, "--path", "/slow?ms=300", "--grace-period", "4s",
		"--search-signals", "SIGQUIT,SIGINT", "--set", "load.duration=4s", "--set", "action.at=2s", "--junit", filepath.Join(t.TempDir(), "check.xml"))
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
	code, _, verdict := checkFixture(t, ctx, ref, "--path", "/slow?ms=300", "--grace-period", "5s", "--search-signals", "SIGQUIT")
	if code != exitFailed {
		t.Errorf("exit %d, want %d (a defect)", code, exitFailed)
	}
	for _, want := range []string{"drops in-flight work: yes", "SIGQUIT: clean", "STOPSIGNAL SIGQUIT: measured clean"} {
		if !strings.Contains(verdict, want) {
			t.Errorf("verdict lacks %q", want)
		}
	}
}

// TestCheckSlowReload: a server whose stop signal reloads it slowly (the
// re-exec fixture with RESTART_DELAY_MS: the listener stays open across
// the exec, new connections wait in its backlog and are answered only
// once the restart is over, seconds later) is diagnosed "the stop signal
// restarts the server" whatever the reload's length — delays of 2 s and
// 3.5 s, each at two action phases half a request apart — and is never
// advised a grace period: it never exits, whatever the grace period.
func TestCheckSlowReload(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	t.Chdir("../..")
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	ref, _, err := images.Build(ctx, eng, images.Spec{Name: "shutdownlab/test-reexec", Package: "./internal/images/testdata/reexec"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ delay, at string }{{"2000", "2s"}, {"2000", "2150ms"}, {"3500", "2s"}, {"3500", "2150ms"}} {
		t.Run("delay="+tc.delay+"ms,at="+tc.at, func(t *testing.T) {
			code, _, verdict := checkFixture(t, ctx, ref, "--path", "/slow?ms=300", "--grace-period", "4s", "--env", "RESTART_DELAY_MS="+tc.delay,
				"--search-signals", "SIGINT", "--set", "load.duration=4s", "--set", "action.at="+tc.at)
			if code != exitFailed {
				t.Errorf("exit %d, want %d (a defect)", code, exitFailed)
			}
			for _, want := range []string{"the stop signal restarts the server", "STOPSIGNAL SIGINT: measured clean"} {
				if !strings.Contains(verdict, want) {
					t.Errorf("verdict lacks %q", want)
				}
			}
			for _, not := range []string{"grace period of at least", "give it a grace period", "signature (iii)"} {
				if strings.Contains(verdict, not) {
					t.Errorf("a slow reload got %q", not)
				}
			}
		})
	}
}

// TestCheckLimitedWorkers: a server with 4 synchronous workers under
// check's 20 clients keeps 16 waiting in its listen backlog; its SIGTERM
// is graceful for the work it holds, but closing the listener resets the
// queue, so check sees drops at 20 clients. The capacity variant measures
// the same stop at the concurrency the server served, finds it clean, and
// the verdict says so — capacity, not shutdown, with no signal advice —
// at two action phases.
func TestCheckLimitedWorkers(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	t.Chdir("../..")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	ref, _, err := images.Build(ctx, eng, images.Spec{Name: "shutdownlab/test-workers", Package: "./internal/images/testdata/workers"})
	if err != nil {
		t.Fatal(err)
	}
	clean := regexp.MustCompile(`at ([0-9]+) clients the same stop was clean`)
	for _, at := range []string{"2s", "2150ms"} {
		t.Run("at="+at, func(t *testing.T) {
			code, _, verdict := checkFixture(t, ctx, ref, "--path", "/slow?ms=300", "--grace-period", "4s", "--env", "WORKERS=4",
				"--set", "load.duration=4s", "--set", "action.at="+at)
			if code != exitFailed {
				t.Errorf("exit %d, want %d (drops at 20 clients are a defect)", code, exitFailed)
			}
			m := clean.FindStringSubmatch(verdict)
			if m == nil {
				t.Fatalf("verdict does not name a concurrency at which the stop was clean")
			}
			if n, _ := strconv.Atoi(m[1]); n < 1 || n > 4 {
				t.Errorf("clean at %d clients: want 1..4 (the server has 4 workers)", n)
			}
			for _, want := range []string{"drops in-flight work: yes", "give it capacity for its clients"} {
				if !strings.Contains(verdict, want) {
					t.Errorf("verdict lacks %q", want)
				}
			}
			for _, not := range []string{"measured clean by", "no signal of", "handle the stop signal", "signal search (", "dies of the signal"} {
				if strings.Contains(verdict, not) {
					t.Errorf("a capacity limit got shutdown advice: %q", not)
				}
			}
		})
	}
}
