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
	"github.com/shutdownlab/shutdownlab/scenarios"
)

func runMain(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

// Usage and input errors exit 64 before anything starts, naming the problem
// on stderr.
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
		{"runs zero", []string{"run", "direct-inflight", "--runs", "0"}, "--runs: 0 is out of range 1..100"},
		{"unknown flag", []string{"run", "direct-inflight", "--bogus"}, "flag provided but not defined: -bogus"},
		{"clean with an argument", []string{"clean", "everything"}, `clean takes no arguments, got "everything"`},
		{"clean unknown flag", []string{"clean", "--force"}, "-force"},
		{"clean --yes alone", []string{"clean", "--yes"}, "--yes only goes with --all"},
		{"list with an argument", []string{"list", "x"}, "list takes no arguments"},
		{"report needs a dir", []string{"report"}, "exactly one result directory"},
		{"report of a missing dir", []string{"report", "/nonexistent/dir"}, "/nonexistent/dir"},
		{"images bad print", []string{"images", "--print", "x"}, `--print: "x"`},
		// Long arguments are quoted only in part.
		{"long unknown command", []string{strings.Repeat("x", 100000)}, `unknown command "xxxxxxxx`},
		{"long unknown scenario", []string{"run", strings.Repeat("x", 100000)}, `unknown scenario "xxxxxxxx`},
		{"long --set value", []string{"run", "direct-inflight", "--set", "load.duration=" + strings.Repeat("9", 60000)}, "(60000 bytes): invalid duration"},
		{"long extra argument", []string{"clean", strings.Repeat("x", 100000)}, `clean takes no arguments, got "xxxxxxxx`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runMain(t, context.Background(), tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %.1000q; want exit %d and %q", code, stderr, exitUsage, tt.want)
			}
			if len(stderr) > 2000 && tt.args != nil {
				t.Errorf("stderr is %d bytes: it echoes an argument", len(stderr))
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

// report rebuilds from a saved result dir without Docker; the fixture has
// runs that do not count, so it exits 2 after writing everything.
func TestMainReportRebuild(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../report/testdata/result")); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runMain(t, context.Background(), "report", dir)
	if code != exitInvalid {
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

// fixtureCopy copies the report package's synthetic result (2 variants x 3
// runs, one invalid and one accounting error in it) into a temp dir;
// validOnly drops the two runs that do not count.
func fixtureCopy(t *testing.T, validOnly bool) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../report/testdata/result")); err != nil {
		t.Fatal(err)
	}
	if validOnly {
		for _, rd := range []string{"mode-close/run-003", "mode-full/run-002"} {
			b, err := os.ReadFile(filepath.Join(dir, rd, "events.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"valid": false`) && !strings.Contains(rd, "full/run-002") {
				t.Fatalf("fixture changed: %s is expected to be an invalid run", rd)
			}
			os.RemoveAll(filepath.Join(dir, rd))
		}
	}
	return dir
}

// Exit codes of report --expect: 0 all held, 1 one failed, 2 a run did not
// count - even when every expectation held on the runs that did.
func TestReportExpectExitCodes(t *testing.T) {
	tests := []struct {
		name      string
		validOnly bool
		expects   []string
		want      int
		stdout    string
	}{
		// Every run valid, every expectation holds.
		{"pass", true, []string{"requests >= 0", "accounting_ok == true"}, 0, "PASS"},
		// Every run valid, one expectation fails in mode=full run 1 (failed = 3).
		{"fail", true, []string{"failed == 0"}, exitFailed, "run 1: failed = 3 (want failed == 0)"},
		// k-of-n: failed == 0 held in 1 of 2 valid runs of mode=full; @1 accepts that.
		{"k of n", true, []string{"failed == 0 @ 1"}, 0, "PASS"},
		// Invalid runs present, expectations hold on the valid ones: still 2, never a pass.
		{"invalid wins", false, []string{"requests >= 0"}, exitInvalid, "PASS"},
		// A NEVER exit never satisfies an ordering.
		{"never is not fast", true, []string{"exit_after_ms < 100000"}, exitFailed, "NEVER"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixtureCopy(t, tt.validOnly)
			args := []string{"report", dir, "--junit", filepath.Join(dir, "junit.xml")}
			for _, e := range tt.expects {
				args = append(args, "--expect", e)
			}
			code, out, stderr := runMain(t, context.Background(), args...)
			if code != tt.want || !strings.Contains(out, tt.stdout) {
				t.Errorf("exit %d (want %d); stdout lacks %q?\n%s\n%s", code, tt.want, tt.stdout, out, stderr)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "junit.xml")); err != nil || !strings.Contains(string(b), "<testcase") {
				t.Errorf("junit not written: %v", err)
			}
		})
	}
}

// Expectation errors are usage errors (64) before anything is read or run.
func TestExpectUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"report", "/nonexistent", "--expect", "p99_ms < "}, "col"},
		{[]string{"report", "/nonexistent", "--expect", "faild == 0"}, "failed"}, // did-you-mean
		{[]string{"run", "direct-inflight", "--expect", "nope == 1"}, "nope"},
		{[]string{"report", "/nonexistent", "--junit", "x.xml"}, "need at least one --expect"},
		{[]string{"report", "/nonexistent", "--expect", strings.Repeat("(", 100000)}, "--expect \"(((("},
		{[]string{"report", "/nonexistent", "--expect", strings.Repeat("(", 1000) + "failed == 0"}, "col 65: nested more than 64 levels deep"},
	}
	for _, tt := range tests {
		code, _, stderr := runMain(t, context.Background(), tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%.200v: exit %d, stderr %.500q; want %d and %q", tt.args, code, stderr, exitUsage, tt.want)
		}
		if len(stderr) > 1000 {
			t.Errorf("%.200v: stderr is %d bytes: it echoes the input", tt.args, len(stderr))
		}
	}
}

// gate compares two result dirs: identical results pass, a worse one
// regresses (exit 1), invalid runs in the new one give 2.
func TestGateCommand(t *testing.T) {
	old := fixtureCopy(t, true)
	same := fixtureCopy(t, true)
	if code, out, stderr := runMain(t, context.Background(), "gate", same, "--baseline", old); code != 0 {
		t.Errorf("identical results: exit %d\n%s\n%s", code, out, stderr)
	}
	worse := fixtureCopy(t, true)
	// Keep one valid mode=close run on both sides and make the new one drop
	// a request it served before: failed 0 -> 1, a loss regression.
	for _, d := range []string{old, worse} {
		os.RemoveAll(filepath.Join(d, "mode-close", "run-002"))
	}
	p := filepath.Join(worse, "mode-close", "run-001", "records.jsonl")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), `"class":"ok"`, `"class":"reset"`, 1)
	s2 := strings.Replace(s, `"by_class":{"ok":40}`, `"by_class":{"ok":39,"reset":1}`, 1)
	// The agent summary in events.json must agree, or the run is (rightly) invalid.
	ep := filepath.Join(worse, "mode-close", "run-001", "events.json")
	eb, _ := os.ReadFile(ep)
	es := strings.Replace(string(eb), "\"ok\": 40\n", "\"ok\": 39, \"reset\": 1\n", 1)
	if s == string(b) || s2 == s || es == string(eb) {
		t.Fatal("could not alter the fixture")
	}
	os.WriteFile(p, []byte(s2), 0o644)
	os.WriteFile(ep, []byte(es), 0o644)
	code, out, _ := runMain(t, context.Background(), "gate", worse, "--baseline", old)
	if code != exitFailed {
		t.Errorf("worse result: exit %d, want 1\n%s", code, out)
	}
	withInvalid := fixtureCopy(t, false)
	if code, _, _ := runMain(t, context.Background(), "gate", withInvalid, "--baseline", old); code != exitInvalid {
		t.Errorf("new result with invalid runs: exit %d, want 2", code)
	}
	if code, _, stderr := runMain(t, context.Background(), "gate", old); code != exitUsage || !strings.Contains(stderr, "--baseline") {
		t.Errorf("missing --baseline: exit %d %q", code, stderr)
	}
}

// An expectation declared in a scenario file is checked before anything
// runs, and its error names the file.
func TestScenarioExpectChecked(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "mine.yaml")
	os.WriteFile(p, []byte("name: mine\nexpect: [\"dropped_inflight == 0\", \"p99 < 400\"]\n"), 0o644)
	code, _, stderr := runMain(t, context.Background(), "run", p)
	if code != exitUsage || !strings.Contains(stderr, p+":2: expect[1]: ") || !strings.Contains(stderr, "p99_ms") {
		t.Errorf("exit %d, stderr %q; want 64 naming %s:2: expect[1] and suggesting p99_ms", code, stderr, p)
	}
}

// A scenario whose expect is nested too deeply (a megabyte of "(" used to
// overflow the stack: exit 2, a 24 KB goroutine dump) is refused at the
// first level past the limit, naming the file, the line and the field,
// without echoing the expression.
func TestScenarioExpectTooDeep(t *testing.T) {
	p := filepath.Join(t.TempDir(), "deep.yaml")
	body := "name: deep\nexpect:\n  - failed == 0\n  - \"" + strings.Repeat("(", scenarios.MaxFileBytes-100) + "failed == 0\"\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runMain(t, context.Background(), "run", p)
	for _, want := range []string{p + ":4: expect[1]: ", "col 65: nested more than 64 levels deep"} {
		if code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr %.500q; want 64 and %q", code, stderr, want)
		}
	}
	if len(stderr) > 2000 {
		t.Errorf("stderr is %d bytes: it echoes the expression", len(stderr))
	}
}
