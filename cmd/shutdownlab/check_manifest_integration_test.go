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

// TestCheckManifestExamples runs `check --manifest` (Docker) on each
// example manifest of examples/kubernetes/manifests with the project's Go
// target as the image, at the judged propagation delay (2 s) only, and
// asserts the documented verdict and exit code: the 3 s preStop sleep is
// safe (at two phases of the 20 ms requests); without a preStop it is not,
// and the pre-stop search finds a sleep that is; a grace period shorter
// than the 3 s requests' drain ends in SIGKILL; a stopSignal the app
// ignores (SIGWINCH) ends in SIGKILL, and check's signal search
// recommends the one it handles (with 300 ms requests, long enough for
// the search's phase split to be conclusive); a rolling update's new pod
// without a readinessProbe, whose app starts in 5 s, takes traffic it
// fails (at two phases), and with the probe (surge-ready) the same update
// is safe.
func TestCheckManifestExamples(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	t.Chdir("../..") // images compile from the module root; the examples' paths
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	target, _, err := images.BuildProject(ctx, eng, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	short := []string{"--propagation", "2s", "--path", "/slow?ms=20"}
	for _, tc := range []struct {
		name     string
		manifest string
		args     []string
		code     int
		want     []string
	}{
		{"preStop sleep 3s", "prestop-sleep", short, exitOK,
			[]string{"propagation 2s: safe: 0 failed", "at your propagation delay, 2s: SAFE"}},
		{"preStop sleep 3s, half a request later", "prestop-sleep", append(short, "--set", "action.at=2010ms"), exitOK,
			[]string{"at your propagation delay, 2s: SAFE"}},
		{"no preStop", "no-prestop", short, exitFailed,
			[]string{"propagation 2s: UNSAFE", "sent while the endpoint was still registered", "no preStop sleep holds the stop signal back",
				"at your propagation delay, 2s: UNSAFE", "measured safe (the smallest whole-second sleep tried"}},
		{"grace shorter than the drain", "grace-too-short", []string{"--propagation", "2s", "--path", "/slow?ms=3000", "--signals", "none"}, exitFailed,
			[]string{"at the grace period's SIGKILL", "SIGKILLed: terminationGracePeriodSeconds 4 ended before it exited"}},
		// 300 ms requests: with 20 ms ones the search's SIGTERM run
		// could not tell drops from the signal's delivery latency in 1
		// of 6 runs (the phase split is inconclusive, check says so)
		{"a stop signal the app ignores", "stopsignal-ignored", []string{"--propagation", "2s", "--path", "/slow?ms=300", "--signals", "SIGWINCH,SIGTERM"}, exitFailed,
			[]string{"SIGKILLed: terminationGracePeriodSeconds 8", "SIGWINCH: no effect seen", "STOPSIGNAL SIGTERM: measured clean"}},
		{"a new pod without a readiness probe", "surge-not-ready", short, exitFailed,
			[]string{"rollout: a new pod replaces it", "propagation 2s: UNSAFE", "sent by the proxy to the new pod before its app served them (without a readinessProbe",
				"new pods: give the container a readinessProbe"}},
		{"a new pod without a readiness probe, half a request later", "surge-not-ready", append(short, "--set", "action.at=2010ms"), exitFailed,
			[]string{"sent by the proxy to the new pod before its app served them"}},
		{"a new pod with a readiness probe", "surge-ready", short, exitOK,
			[]string{"it is ready once its readinessProbe, GET /readyz", "propagation 2s: safe: 0 failed", "at your propagation delay, 2s: SAFE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"check", "--manifest", filepath.Join("examples/kubernetes/manifests", tc.manifest+".yaml"),
				"--image", target, "--out", out}, tc.args...)
			code, stdout, stderr := runMain(t, ctx, args...)
			t.Logf("check --manifest %s: exit %d\n%s\nstderr:\n%s", tc.manifest, code, stdout, stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			files, _ := filepath.Glob(filepath.Join(out, "*-check-manifest-*", "verdict.txt"))
			if len(files) != 1 {
				t.Fatalf("verdict.txt of the sweep: %q, want one", files)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("verdict lacks %q", w)
				}
			}
		})
	}
}
