package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeprecatedCheckFlags: check's old flag names still set the same
// value, with one line on stderr naming the new flag; a flag given under
// both names is refused, naming both. The bad values make check stop
// before it looks for the image (no Docker needed), and the error names
// the flag by its current name.
func TestDeprecatedCheckFlags(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"a:1", "--grace", "1500ms"}, []string{"check: --grace is deprecated: use --grace-period", "--grace-period: 1.5s: want whole seconds"}},
		{[]string{"a:1", "--signal", "SIGSTOP"}, []string{"check: --signal is deprecated: use --stop-signal", `--stop-signal: "SIGSTOP": want one of SIGTERM`}},
		{[]string{"a:1", "--signals", "SIGKILL"}, []string{"check: --signals is deprecated: use --search-signals", `--search-signals: "SIGKILL": want a comma-separated list`}},
		{[]string{"a:1", "--signal", "TERM", "--stop-signal", "INT"}, []string{"--signal and --stop-signal name the same flag: give only --stop-signal (--signal is deprecated)"}},
		{[]string{"a:1", "--grace", "5s", "--grace-period", "5s"}, []string{"--grace and --grace-period name the same flag"}},
		{[]string{"--manifest", "x.yaml", "--signals", "none", "--search-signals", "SIGINT"}, []string{"--signals and --search-signals name the same flag"}},
		{[]string{"--manifest", "x.yaml", "--signals", "SIGKILL"}, []string{"check: --signals is deprecated: use --search-signals", `--search-signals: "SIGKILL"`}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := runMain(t, context.Background(), append([]string{"check"}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if n := strings.Count(stderr, "is deprecated"); n > 1 {
				t.Errorf("%d deprecation lines: %q", n, stderr)
			}
		})
	}
}

// TestCheckUsageNamesCurrentFlags: check's usage text and flag list name
// the current flags first and the old ones only as deprecated.
func TestCheckUsageNamesCurrentFlags(t *testing.T) {
	for _, args := range [][]string{{"check", "-h"}, {"check", "--manifest", "x", "-h"}} {
		code, stdout, _ := runMain(t, context.Background(), args...)
		if code != exitOK || !strings.Contains(stdout, "--search-signals SIG,...|none") {
			t.Errorf("%v: exit %d, usage lacks --search-signals:\n%s", args, code, stdout)
		}
		if !strings.Contains(stdout, "-signals string\n    \tdeprecated: use --search-signals") {
			t.Errorf("%v: --signals not listed as deprecated:\n%s", args, stdout)
		}
	}
	_, stdout, _ := runMain(t, context.Background(), "check", "-h")
	for _, want := range []string{"[--stop-signal SIG]", "[--grace-period 10s]", "deprecated: use --stop-signal", "deprecated: use --grace-period"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check usage lacks %q", want)
		}
	}
}

// TestRunWarnsOfDeprecatedKeys: run prints one line per deprecated key of
// the scenario file (file:line, old and new key) and of --set, before it
// refuses the run for another reason (an --out it cannot write).
func TestRunWarnsOfDeprecatedKeys(t *testing.T) {
	p := filepath.Join(t.TempDir(), "old.yaml")
	src := "name: old\ntarget: {stop_timeout: 5s}\naction:\n  kind: stop\n  timeout: 4s\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runMain(t, context.Background(), "run", p, "--set", "action.signal=SIGINT", "--set", "action.kind=signal", "--out", "/proc/version/x")
	for _, want := range []string{
		p + ":2: target.stop_timeout is deprecated: use target.grace_period\n",
		p + ":5: action.timeout is deprecated: use action.grace_period\n",
		"--set: action.signal is deprecated: use action.stop_signal\n",
		"--out /proc/version/x",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
}

// TestDeprecatedReferenceSpellings: baseline.NAME and --baseline-variant,
// the old spellings of reference.NAME and --reference-variant, still
// work, each use one line on stderr naming where and the spelling to use;
// the flag given under both names is refused. Each command is refused
// afterwards for another reason (an --out it cannot write, a result
// directory that does not exist), so nothing runs.
func TestDeprecatedReferenceSpellings(t *testing.T) {
	p := filepath.Join(t.TempDir(), "old.yaml")
	src := "name: old\nvariants:\n  target.mode: [none, full]\nexpect:\n  - failed == 0\n  - p99_ms < 2 * baseline.p99_ms\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const refused = "--out /proc/version/x"
	run := []string{"run", "direct-inflight", "--out", "/proc/version/x"}
	tests := []struct {
		name string
		args []string
		want []string // lines (or parts) of stderr, in order
		deps int      // how many "is deprecated" lines
	}{
		{"current spellings", append(run, "--expect", "p99_ms < 2 * reference.p99_ms", "--reference-variant", "mode=none"), []string{refused}, 0},
		{"baseline.NAME in --expect", append(run, "--expect", "p99_ms < 2 * baseline.p99_ms", "--reference-variant", "mode=none"),
			[]string{`expect "p99_ms < 2 * baseline.p99_ms": col 14: baseline.p99_ms is deprecated: use reference.p99_ms` + "\n", refused}, 1},
		{"--baseline-variant", append(run, "--expect", "p99_ms < 2 * reference.p99_ms", "--baseline-variant", "mode=none"),
			[]string{"run: --baseline-variant is deprecated: use --reference-variant\n", refused}, 1},
		{"both old spellings", append(run, "--expect", "baseline.failed == 0 && p99_ms < 2 * baseline.p99_ms", "--baseline-variant", "mode=full"),
			[]string{"run: --baseline-variant is deprecated: use --reference-variant\n",
				"col 1: baseline.failed is deprecated: use reference.failed\n",
				"col 38: baseline.p99_ms is deprecated: use reference.p99_ms\n", refused}, 3},
		{"both flag names", append(run, "--reference-variant", "mode=none", "--baseline-variant", "mode=none"),
			[]string{"--baseline-variant and --reference-variant name the same flag: give only --reference-variant (--baseline-variant is deprecated)"}, 1},
		{"baseline.NAME in a scenario file", []string{"run", p, "--out", "/proc/version/x", "--reference-variant", "mode=none"},
			[]string{p + `:6: expect[1]: expect "p99_ms < 2 * baseline.p99_ms": col 14: baseline.p99_ms is deprecated: use reference.p99_ms` + "\n", refused}, 1},
		{"report", []string{"report", filepath.Join(t.TempDir(), "none"), "--expect", "p99_ms < baseline.p99_ms", "--baseline-variant", "x"},
			[]string{"report: --baseline-variant is deprecated: use --reference-variant\n",
				`expect "p99_ms < baseline.p99_ms": col 10: baseline.p99_ms is deprecated: use reference.p99_ms` + "\n", "result directory"}, 2},
		{"check", []string{"check", "a:1", "--baseline-variant", "x", "--runs", "0"},
			[]string{"check: --baseline-variant is deprecated: use --reference-variant\n", "--runs: 0 is out of range"}, 1},
		{"check --manifest", []string{"check", "--manifest", "x.yaml", "--baseline-variant", "x", "--search-signals", "SIGKILL"},
			[]string{"check: --baseline-variant is deprecated: use --reference-variant\n", `--search-signals: "SIGKILL"`}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runMain(t, context.Background(), tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %q", code, exitUsage, stderr)
			}
			rest := stderr
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("stderr %q lacks %q (in this order)", stderr, w)
				}
				rest = rest[i+len(w):]
			}
			if n := strings.Count(stderr, "is deprecated"); n != tc.deps {
				t.Errorf("%d deprecation lines, want %d: %q", n, tc.deps, stderr)
			}
		})
	}
}
