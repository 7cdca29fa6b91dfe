package main

import (
	"context"
	"strings"
	"testing"
)

// --only selects claims of both tables; an unknown id is refused (64)
// before Docker is touched, naming the known ones, and the help says the
// W claims can be selected.
func TestReproduceOnlySelectsWClaims(t *testing.T) {
	code, _, stderr := runMain(t, context.Background(), "reproduce", "--only", "W7")
	if code != exitUsage || !strings.Contains(stderr, "W1 .. W6") {
		t.Errorf("reproduce --only W7: exit %d, stderr %q; want 64 naming W1 .. W6", code, stderr)
	}
	code, _, stderr = runMain(t, context.Background(), "reproduce", "--only", "W2", "--runtime", "python")
	if code != exitUsage || !strings.Contains(stderr, "python") {
		t.Errorf("reproduce --only W2 --runtime python: exit %d, stderr %q; want 64 naming the runtime", code, stderr)
	}
	if _, out, _ := runMain(t, context.Background(), "reproduce", "--help"); !strings.Contains(out, "W1-W6") || !strings.Contains(out, "W2,W3") {
		t.Errorf("reproduce --help does not say W1-W6 can be selected:\n%s", out)
	}
	if _, out, _ := runMain(t, context.Background(), "reproduce", "--help"); !strings.Contains(out, "C1-C4") {
		t.Errorf("reproduce --help does not name C1-C4:\n%s", out)
	}
	code, _, stderr = runMain(t, context.Background(), "reproduce", "--only", "C5")
	if code != exitUsage || !strings.Contains(stderr, "C1 .. C4") {
		t.Errorf("reproduce --only C5: exit %d, stderr %q; want 64 naming C1 .. C4", code, stderr)
	}
}
