package main

import (
	"context"
	"github.com/shutdownlab/shutdownlab/check"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/images"
)

// Bad check input is refused before anything starts (no Docker needed):
// exit 64, naming the flag and value.
func TestCheckUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "check needs exactly one IMAGE"},
		{[]string{"a:1", "b:1"}, "check needs exactly one IMAGE"},
		{[]string{"a:1", "--grace-period", "1500ms"}, "--grace-period: 1.5s: want whole seconds"},
		{[]string{"a:1", "--grace-period", "0s"}, "--grace-period: 0s"},
		{[]string{"a:1", "--runs", "0"}, "--runs: 0 is out of range"},
		{[]string{"a:1", "--path", "slow"}, `--path: "slow": must start with "/"`},
		{[]string{"a:1", "--ready-path", "/r?x=1"}, `--ready-path: "/r?x=1"`},
		{[]string{"a:1", "--stop-signal", "SIGSTOP"}, `--stop-signal: "SIGSTOP": want one of SIGTERM`},
		{[]string{"a:1", "--search-signals", "SIGQUIT,SIGKILL"}, `--search-signals: "SIGKILL": want a comma-separated list`},
		{[]string{"a:1", "--env", "NOVALUE"}, `--env: "NOVALUE": want NAME=VALUE`},
		{[]string{"a:1", "--stop-signal", "SIGPWR"}, `--stop-signal: "SIGPWR": want one of SIGTERM`},
		{[]string{"a:1", "--port", "70000"}, "--port: 70000"},
		{[]string{"a:1", "--expect", "dropped_inflght == 0"}, `unknown metric "dropped_inflght"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := runMain(t, context.Background(), append([]string{"check"}, tc.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitUsage, tc.want)
			}
		})
	}
}

// TestCheckTargetImage runs check (Docker, 4 s loads, a 3 s grace period)
// on the project's own target image as a user image, its mode given as
// the user would (--env MODE=...; check sets none by itself): in mode none
// it drops the requests in flight and dies of the signal, so the verdict
// names a defect and the expectation of no drops fails (exit 1); in mode
// full it drops none and exits 0.
func TestCheckTargetImage(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	t.Chdir("../..") // images compile from the module root
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	target, _, err := images.BuildProject(ctx, eng, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		mode     string
		wantCode int
		want     []string
	}{
		{"none", exitFailed, []string{"drops in-flight work: yes", "by dying of the signal", "handle the stop signal"}},
		{"full", exitOK, []string{"drops in-flight work: no", "exits by itself: yes, exit code 0", "clean: "}},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := runMain(t, ctx, "check", target, "--path", "/slow?ms=300", "--grace-period", "3s", "--out", out,
				"--env", "MODE="+tc.mode, "--search-signals", "none", "--set", "load.duration=4s", "--set", "action.at=2s",
				"--expect", "dropped_inflight == 0")
			t.Logf("check output:\n%s", stdout)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, tc.wantCode, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("verdict lacks %q", w)
				}
			}
			dirs, _ := filepath.Glob(filepath.Join(out, "*-check-*", "verdict.txt"))
			if len(dirs) != 1 {
				t.Fatalf("verdict.txt files %q, want one", dirs)
			}
			if b, _ := os.ReadFile(dirs[0]); !strings.Contains(stdout, string(b)) {
				t.Errorf("verdict.txt differs from the printed verdict:\n%s", b)
			}
		})
	}
}

// TestParseSignals: the default list, none, names and numbers, and
// refusals naming the value.
func TestParseSignals(t *testing.T) {
	if got, _ := parseSignals(""); !slices.Equal(got, check.SearchSignals) {
		t.Errorf("default %q", got)
	}
	if got, _ := parseSignals("none"); got != nil {
		t.Errorf("none: %q", got)
	}
	if got, err := parseSignals("quit, 28,SIGQUIT"); err != nil || !slices.Equal(got, []string{"SIGQUIT", "SIGWINCH"}) {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := parseSignals("SIGKILL"); err == nil || !strings.Contains(err.Error(), `"SIGKILL"`) {
		t.Errorf("SIGKILL: %v", err)
	}
}
