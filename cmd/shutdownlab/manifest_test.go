package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/kube"
)

// TestIsManifestCheck: check's arguments name a manifest in any flag
// spelling, never after "--".
func TestIsManifestCheck(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"my/app:1"}, false},
		{[]string{"--manifest", "web.yaml"}, true},
		{[]string{"-manifest=web.yaml", "--runs", "2"}, true},
		{[]string{"--runs", "2", "--manifest=web.yaml"}, true},
		{[]string{"--", "--manifest"}, false},
		{[]string{"manifest"}, false},
	} {
		if got := isManifestCheck(tt.args); got != tt.want {
			t.Errorf("isManifestCheck(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestSweep: the swept delays are sorted and distinct and always hold the
// judged delay: the largest given, --delay, else 2 s.
func TestSweep(t *testing.T) {
	s := time.Second
	for _, tt := range []struct {
		propagation, delay string
		want               []time.Duration
		stated             time.Duration
		err                string
	}{
		{"", "", []time.Duration{0, s, 2 * s, 5 * s}, 2 * s, ""},
		{"3s", "", []time.Duration{3 * s}, 3 * s, ""},
		{"2s,0s,1s,1s", "", []time.Duration{0, s, 2 * s}, 2 * s, ""},
		{"", "1500ms", []time.Duration{0, s, 1500 * time.Millisecond, 2 * s, 5 * s}, 1500 * time.Millisecond, ""},
		{"0s,4s", "1s", []time.Duration{0, s, 4 * s}, s, ""},
		{"1s,x", "", nil, 0, `--propagation: "x"`},
		{"-1s", "", nil, 0, `--propagation: "-1s"`},
		{"250ms", "", nil, 0, "steps of 100ms"},
		{"", "2m", nil, 0, `--delay: "2m"`},
	} {
		got, stated, err := sweep(tt.propagation, tt.delay)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("sweep(%q, %q) error %v, want %q", tt.propagation, tt.delay, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) || stated != tt.stated {
			t.Errorf("sweep(%q, %q) = %v, %v, %v; want %v, %v", tt.propagation, tt.delay, got, stated, err, tt.want, tt.stated)
		}
	}
}

// TestManifestUsageErrors: bad flags and manifests exit 64 before any
// engine is asked, naming the flag or the manifest's field.
func TestManifestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  terminationGracePeriodSeconds: %s\n  containers:\n  - name: app\n    image: my/app:1\n"
	zero := write("zero.yaml", strings.Replace(pod, "%s", "0", 1))
	ok := write("ok.yaml", strings.Replace(pod, "%s", "5", 1))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--manifest", filepath.Join(dir, "missing.yaml")}, "--manifest: no such file"},
		{[]string{"--manifest", ok, "my/app:1"}, "takes no IMAGE argument"},
		{[]string{"--manifest", ok, "--propagation", "soon"}, `--propagation: "soon"`},
		{[]string{"--manifest", ok, "--runs", "0"}, "--runs: 0"},
		{[]string{"--manifest", ok, "--env", "NOVALUE"}, `--env: "NOVALUE"`},
		{[]string{"--manifest", zero}, "terminationGracePeriodSeconds 0"},
		{[]string{"--manifest", "../../internal/kube/testdata/deployment.yaml"}, "--container"},
		{[]string{"--manifest", "../../internal/kube/testdata/deployment.yaml", "--container", "app"}, "env[1] (DB_PASSWORD) takes its value from valueFrom (a Secret, ConfigMap or field), which shutdownlab cannot read: give one with --env DB_PASSWORD=VALUE"},
		// --set edits the generated scenario, after the manifest is read:
		// the refusal names the flag that gives the value, and says why.
		{[]string{"--manifest", "../../internal/kube/testdata/deployment.yaml", "--container", "app", "--set", "target.env.DB_PASSWORD=x"},
			"give one with --env DB_PASSWORD=VALUE (--set target.env.DB_PASSWORD edits the scenario made from the manifest, after the manifest is read: it cannot give a valueFrom entry its value)"},
		{[]string{"--manifest", "../../internal/kube/testdata/typo.yaml"}, "typo.yaml"},
	} {
		code, _, stderr := runMain(t, context.Background(), append([]string{"check"}, tt.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("check %q: exit %d, stderr %q; want 64 naming %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestReadManifestTooLarge: a manifest over 4 MiB is refused with its own
// size when it has one (a regular file: refused unread, exit 64), else
// with the limit alone (a pipe: never the limit + 1 it read), and the
// limit in MiB, never in bytes read.
func TestReadManifestTooLarge(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	fh, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(50 << 20); err != nil { // sparse: 50 MiB of zeros
		t.Fatal(err)
	}
	fh.Close()
	code, _, stderr := runMain(t, context.Background(), "check", "--manifest", big)
	want := "--manifest " + big + ": 52428800 bytes (50 MiB), more than the 4 MiB a manifest may have; refused unread"
	if code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 64 and %q", code, stderr, want)
	}
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no fifo:", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.Write(make([]byte, 5<<20)) // ends with an EPIPE once the reader stops
	}()
	code, _, stderr = runMain(t, context.Background(), "check", "--manifest", fifo)
	if want := "shutdownlab: --manifest " + fifo + ": more than the 4 MiB a manifest may have; refused\n"; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("a pipe: exit %d, stderr %q; want 64 and %q", code, stderr, want)
	}
	if _, err := kube.Read("x.yaml", make([]byte, kube.MaxManifestBytes+1), kube.Options{}); err == nil ||
		err.Error() != "x.yaml: 4194305 bytes, more than the 4 MiB a manifest may have" {
		t.Errorf("kube.Read of the limit + 1: %v", err)
	}
}
