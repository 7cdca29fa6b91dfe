package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunImageRefusesUndeclaredPath: with --image, a load path the image
// does not declare in target.protocol.paths is refused before anything
// starts (no Docker needed), with file:line, field, value and the image.
func TestRunImageRefusesUndeclaredPath(t *testing.T) {
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
