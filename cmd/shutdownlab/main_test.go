package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
)

func runMain(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

// Usage and input errors exit 2 before anything starts, naming the problem.
func TestMainUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"run without scenario", []string{"run"}, "at least one scenario"},
		{"unknown scenario", []string{"run", "nope"}, `unknown scenario "nope"`},
		{"bad --set value", []string{"run", "direct-inflight", "--set", "load.duration=3q"}, `load.duration: "3q": invalid duration`},
		{"bad --set key", []string{"run", "direct-inflight", "--set", "load.nope=1"}, "load.nope"},
		{"runs out of range", []string{"run", "direct-inflight", "--runs", "101"}, "--runs: 101"},
		{"report needs a dir", []string{"report"}, "exactly one result directory"},
		{"report of a missing dir", []string{"report", "/nonexistent/dir"}, "/nonexistent/dir"},
		{"images bad print", []string{"images", "--print", "x"}, `--print: "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runMain(t, context.Background(), tt.args...)
			if code != exitInvalid || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

func TestMainList(t *testing.T) {
	code, out, _ := runMain(t, context.Background(), "list")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, name := range []string{"pid1-signal", "direct-inflight", "deadline", "stop-timeout-job"} {
		if !strings.Contains(out, name) {
			t.Errorf("list lacks %s:\n%s", name, out)
		}
	}
}

// report rebuilds from a saved result dir without Docker.
func TestMainReportRebuild(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../report/testdata/result")); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runMain(t, context.Background(), "report", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "mode=full") {
		t.Errorf("terminal table lacks variants:\n%s", out)
	}
	for _, f := range []string{"report.md", "report.csv", "spread.csv", "summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

// The first interrupt cancels, the second exits at once.
func TestInterrupts(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	cancelled := make(chan struct{})
	exited := make(chan struct{})
	var w bytes.Buffer
	go interrupts(sigs, func() { close(cancelled) }, &w, func() { close(exited) })
	sigs <- os.Interrupt
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("first interrupt did not cancel")
	}
	select {
	case <-exited:
		t.Fatal("exited after one interrupt")
	case <-time.After(50 * time.Millisecond):
	}
	sigs <- os.Interrupt
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("second interrupt did not exit")
	}
}

// A run that cannot be measured exits 2, never 0 (Docker).
func TestMainInvalidRunExits2(t *testing.T) {
	dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	wd, _ := os.Getwd()
	if err := os.Chdir("../.."); err != nil { // images compile from the module root
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	code, out, stderr := runMain(t, ctx, "run", "direct-inflight", "--runs", "1", "--out", t.TempDir(),
		"--set", "target.mode=full", "--set", "target.env.SWEEP_MS=0", "--set", "load.duration=2s", "--set", "action.at=1s")
	if code != exitInvalid {
		t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "1 invalid") {
		t.Errorf("stdout does not count the invalid run:\n%s", out)
	}
}
