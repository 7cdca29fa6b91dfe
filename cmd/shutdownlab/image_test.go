package main

import (
	"context"
	"github.com/shutdownlab/shutdownlab/internal/runplan"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeImageEngine plays the Docker engine for the image check: it has the
// images in present, and records every image it is asked about.
type fakeImageEngine struct {
	present []string
	asked   *[]string
}

func (f fakeImageEngine) ImageExists(_ context.Context, ref string) (bool, error) {
	*f.asked = append(*f.asked, ref)
	return slices.Contains(f.present, ref), nil
}
func (fakeImageEngine) Host() string { return "unix:///fake/docker.sock" }
func (fakeImageEngine) Close() error { return nil }

// useFakeImages makes the image check ask a fake engine holding present
// for the rest of the test; it returns the images asked about.
func useFakeImages(t *testing.T, present ...string) *[]string {
	t.Helper()
	old := runplan.NewImageEngine
	t.Cleanup(func() { runplan.NewImageEngine = old })
	asked := &[]string{}
	runplan.NewImageEngine = func(context.Context) (runplan.ImageEngine, error) {
		return fakeImageEngine{present: present, asked: asked}, nil
	}
	return asked
}

// TestRunImageRefusesUndeclaredPath: with --image, a load path the image
// does not declare in target.protocol.paths is refused before anything
// starts (no Docker needed), with file:line, field, value and the image.
func TestRunImageRefusesUndeclaredPath(t *testing.T) {
	useFakeImages(t, "my/svc:1")
	p := filepath.Join(t.TempDir(), "mine.yaml")
	src := "name: mine\ntarget:\n  protocol:\n    paths: [/slow]\nload:\n  mix:\n    - {path: \"/slow?ms=10\"}\n    - {method: POST, path: \"/write?ms=10\"}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runMain(t, context.Background(), "run", p, "--image", "my/svc:1")
	want := p + `:8: load.mix[1].path: "/write?ms=10": image my/svc:1 does not declare path "/write" (declared: ready path /readyz, target.protocol.paths [/slow]); if it serves /write: --set target.protocol.paths=/slow,/write (or target.protocol.paths in a scenario file)`
	if code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 64 and %q", code, stderr, want)
	}
}

// A missing --image is the first error, before what the scenario says
// about the paths the image declares (run --image busybox:latest used to
// complain about an undeclared /slow first); nothing is written.
func TestRunMissingImageFirst(t *testing.T) {
	asked := useFakeImages(t, "my/svc:1")
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"run", "direct-inflight", "--out", out, "--image", "busybox:latest"},
		{"run", "direct-inflight", "--out", out, "--set", "target.image= busybox:latest"},
	} {
		*asked = nil
		code, stdout, stderr := runMain(t, context.Background(), args...)
		want := "--image / target.image busybox:latest: not present on this Docker engine (unix:///fake/docker.sock); shutdownlab never pulls"
		if code != exitUsage || !strings.HasPrefix(stderr, "shutdownlab: "+want) || strings.Contains(stderr, "does not declare path") {
			t.Errorf("%v: exit %d, stderr %q; want 64 and only %q", args, code, stderr, want)
		}
		if !slices.Equal(*asked, []string{"busybox:latest"}) {
			t.Errorf("%v: engine asked about %q", args, *asked)
		}
		if _, err := os.Stat(out); err == nil || strings.Contains(stdout, "report.md") {
			t.Errorf("%v: a refused run wrote %s", args, out)
		}
	}
	// Present, the image passes, and the scenario's complaint follows.
	*asked = nil
	code, _, stderr := runMain(t, context.Background(), "run", "direct-inflight", "--out", out, "--image", "my/svc:1")
	if code != exitUsage || !strings.Contains(stderr, `image my/svc:1 does not declare path "/slow"`) {
		t.Errorf("present image: exit %d, stderr %q; want the undeclared path", code, stderr)
	}
	// An image named in the scenario file is checked once, after the file.
	p := filepath.Join(t.TempDir(), "mine.yaml")
	src := "name: mine\ntarget:\n  image: other/svc:2\n  protocol:\n    paths: [/slow]\nload:\n  mix:\n    - {path: \"/slow?ms=10\"}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	*asked = nil
	code, _, stderr = runMain(t, context.Background(), "run", p, "--out", out)
	if code != exitUsage || !strings.Contains(stderr, "other/svc:2: not present") || !slices.Equal(*asked, []string{"other/svc:2"}) {
		t.Errorf("file image: exit %d, stderr %q, asked %q", code, stderr, *asked)
	}
}
