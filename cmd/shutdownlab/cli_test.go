package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// -h / --help, at the top level and after every command, print the usage
// to stdout and exit 0 with nothing on stderr.
func TestHelpExitsZero(t *testing.T) {
	cases := [][]string{{"-h"}, {"--help"}, {"help"}, {"help", "run"}}
	for _, c := range []string{"list", "run", "reproduce", "report", "gate", "images", "clean"} {
		cases = append(cases, []string{c, "-h"}, []string{c, "--help"})
	}
	for _, args := range cases {
		code, out, stderr := runMain(t, context.Background(), args...)
		if code != exitOK || !strings.Contains(out, "Usage") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0, usage on stdout, empty stderr", args, code, out, stderr)
		}
	}
	// The flags of a command are listed in its help.
	if _, out, _ := runMain(t, context.Background(), "gate", "-h"); !strings.Contains(out, "-min-ms") || !strings.Contains(out, "noise floor") {
		t.Errorf("gate -h lacks --min-ms:\n%s", out)
	}
	// The exit codes are in the top-level usage.
	if _, out, _ := runMain(t, context.Background(), "--help"); !strings.Contains(out, "64  bad usage") {
		t.Errorf("usage lacks the exit codes:\n%s", out)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, stderr := runMain(t, context.Background(), args...)
		if code != exitOK || !strings.HasPrefix(out, "shutdownlab ") || !strings.Contains(out, "go1") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
}

// clean --all without a terminal needs --yes; refused before Docker is
// touched.
func TestCleanAllNeedsYesWithoutTerminal(t *testing.T) {
	old := stdinIsTerminal
	stdinIsTerminal = func() bool { return false }
	defer func() { stdinIsTerminal = old }()
	code, _, stderr := runMain(t, context.Background(), "clean", "--all")
	if code != exitUsage || !strings.Contains(stderr, "--yes") {
		t.Errorf("exit %d, stderr %q; want 64 asking for --yes", code, stderr)
	}
}

// SIGHUP (a closed terminal) is handled like SIGINT: the first one cancels
// the run, so its containers are removed. Without the handler it would
// kill this test binary.
func TestSIGHUPCancels(t *testing.T) {
	var cancelled atomic.Bool
	done := make(chan struct{})
	stop := watchSignals(func() { cancelled.Store(true); close(done) }, &strings.Builder{}, func() {})
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP did not cancel")
	}
}

// writeEffectiveFor writes effective.json into a fixture copy, as the
// runner does: both of its variants with the default spec, changed by f.
func writeEffectiveFor(t *testing.T, dir string, f func(*scenarios.Spec)) {
	t.Helper()
	sp := scenarios.Defaults()
	f(&sp)
	b, err := json.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	e := resultdir.Effective{Scenario: "fixture-roll", Variants: []resultdir.EffectiveVariant{
		{Label: "mode=close", Spec: b}, {Label: "mode=full", Spec: b}}}
	if err := resultdir.WriteEffective(dir, e); err != nil {
		t.Fatal(err)
	}
}

// gate answers "not comparable" (exit 2, saying why) instead of a verdict
// when the baseline cannot be compared.
func TestGateNotComparable(t *testing.T) {
	t.Run("baseline all invalid", func(t *testing.T) {
		cur, old := fixtureCopy(t, true), fixtureCopy(t, false)
		for _, rd := range []string{"mode-close/run-001", "mode-close/run-002", "mode-full/run-001", "mode-full/run-003"} {
			os.Remove(filepath.Join(old, rd, "events.json")) // killed runs: none counts
		}
		code, out, stderr := runMain(t, context.Background(), "gate", cur, "--baseline", old)
		if code != exitInvalid || !strings.Contains(out, "Not comparable") || !strings.Contains(stderr, "the baseline has no valid run") {
			t.Errorf("exit %d, want 2 and why\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
		}
		if strings.Contains(out, "No regression") {
			t.Errorf("says no regression after comparing nothing:\n%s", out)
		}
	})
	t.Run("other load", func(t *testing.T) {
		cur, old := fixtureCopy(t, true), fixtureCopy(t, true)
		writeEffectiveFor(t, cur, func(sp *scenarios.Spec) { sp.Load.Clients, sp.Load.Duration = 5, scenarios.Seconds(3) })
		writeEffectiveFor(t, old, func(sp *scenarios.Spec) {})
		code, out, stderr := runMain(t, context.Background(), "gate", cur, "--baseline", old)
		for _, want := range []string{"load.clients: new 5, baseline 20", "load.duration: new 3s, baseline 6s"} {
			if code != exitInvalid || !strings.Contains(stderr, want) || !strings.Contains(out, want) {
				t.Errorf("exit %d, want 2 and %q\nstdout:\n%s\nstderr:\n%s", code, want, out, stderr)
			}
		}
	})
	t.Run("other scenario", func(t *testing.T) {
		cur, old := fixtureCopy(t, true), fixtureCopy(t, true)
		ps, _ := filepath.Glob(filepath.Join(old, "*", "run-*", "events.json"))
		for _, p := range ps {
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), `"fixture-roll"`, `"deadline"`, 1)), 0o644)
		}
		code, _, stderr := runMain(t, context.Background(), "gate", cur, "--baseline", old)
		if code != exitInvalid || !strings.Contains(stderr, `scenario: new "fixture-roll", baseline "deadline"`) {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("same load states what it compared", func(t *testing.T) {
		cur, old := fixtureCopy(t, true), fixtureCopy(t, true)
		writeEffectiveFor(t, cur, func(sp *scenarios.Spec) {})
		writeEffectiveFor(t, old, func(sp *scenarios.Spec) {})
		code, out, stderr := runMain(t, context.Background(), "gate", cur, "--baseline", old)
		if code != exitOK || !strings.Contains(out, "Scenario: `fixture-roll`") || !strings.Contains(out, "Valid runs: new 4 of 4, baseline 4 of 4") {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
		}
	})
}

// Checks that used to come after the run time was spent refuse the
// command before anything starts (exit 64), and nothing is written.
func TestRunRefusedBeforeStart(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"reference without variant", []string{"--expect", "p99_ms < 2 * reference.p99_ms"}, "uses reference.NAME but no --reference-variant"},
		{"reference variant not in scenario", []string{"--expect", "p99_ms < 2 * reference.p99_ms", "--reference-variant", "nope"}, `--reference-variant "nope" is not a variant`},
		{"old spelling without variant", []string{"--expect", "p99_ms < 2 * baseline.p99_ms"}, "uses reference.NAME but no --reference-variant"},
		{"old flag, variant not in scenario", []string{"--expect", "p99_ms < 2 * baseline.p99_ms", "--baseline-variant", "nope"}, `--reference-variant "nope" is not a variant`},
		{"write metric without writes", []string{"--expect", "ghost_writes == 0"}, `metric "ghost_writes" cannot exist in this scenario: it needs a POST /write in load.mix`},
		{"probe metric without probe", []string{"--expect", "probe_server_closed == true"}, "needs load.kind probe"},
		{"ws metric without ws", []string{"--expect", "ws_close_1006 == 0"}, "needs load.kind ws"},
		{"junit under a file", []string{"--expect", "failed == 0", "--junit", "/proc/version/junit.xml"}, "--junit /proc/version/junit.xml"},
		{"junit in a read-only dir", []string{"--expect", "failed == 0", "--junit", "/proc/junit.xml"}, "--junit /proc/junit.xml: cannot write in /proc"},
		{"out under a file", []string{"--out", "/proc/version/x"}, "--out /proc/version/x: /proc/version is not a directory"},
		{"set value too large", []string{"--set", "load.mix=" + strings.Repeat("x", scenarios.MaxSetBytes)}, "--set load.mix"},
		{"expect too large", []string{"--expect", strings.Repeat("(", 100000)}, "--expect \"" + strings.Repeat("(", scenarios.ShortChars) + "…\": 100000 bytes, the limit is 65536 bytes (64 KiB, as for --set)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "direct-inflight", "--out", out}, tt.args...)
			code, _, stderr := runMain(t, context.Background(), args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %.500q; want 64 and %q", code, stderr, tt.want)
			}
			if len(stderr) > 1000 {
				t.Errorf("stderr is %d bytes: it echoes the input", len(stderr))
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was created by a refused run", out)
			}
		})
	}
}

// A scenario file over the size limit is refused with its name and size.
func TestRunRefusesHugeScenario(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.yaml")
	if err := os.WriteFile(p, append([]byte("name: huge\n#"), make([]byte, scenarios.MaxFileBytes)...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runMain(t, context.Background(), "run", p)
	if code != exitUsage || !strings.Contains(stderr, p) || !strings.Contains(stderr, "too large") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// report on a directory with one broken run reports the others and says
// which run it skipped, on stderr and in report.md.
func TestReportSkipsBrokenRun(t *testing.T) {
	dir := fixtureCopy(t, true)
	os.WriteFile(filepath.Join(dir, "mode-full", "run-001", "events.json"), []byte("{not json"), 0o644)
	code, _, stderr := runMain(t, context.Background(), "report", dir)
	if code != exitInvalid || !strings.Contains(stderr, "skipped unreadable run mode-full/run-001") {
		t.Errorf("exit %d, stderr %q; want 2 and a note", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "report.md")); err != nil || !strings.Contains(string(b), "unreadable, skipped") {
		t.Errorf("report.md lacks the note (%v)", err)
	}
}

// A --image that is not on the engine is refused before a result directory
// is written: no empty directory, no "0 runs -> report.md" (Docker: one
// ping and one image inspect, no container).
func TestRunMissingImageWritesNothing(t *testing.T) {
	dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runMain(t, ctx, "run", "direct-inflight", "--runs", "1", "--out", out,
		"--image", "shutdownlab/no-such-image:missing", "--set", "target.protocol.paths=/slow")
	if code != exitUsage || !strings.Contains(stderr, "shutdownlab/no-such-image:missing: not present on this Docker engine") {
		t.Errorf("exit %d, stderr %q; want 64 naming the image", code, stderr)
	}
	if _, err := os.Stat(out); err == nil || strings.Contains(stdout, "report.md") {
		t.Errorf("a refused run wrote %s (stdout %q)", out, stdout)
	}
}
