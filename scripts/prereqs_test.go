// Package scripts holds the tests of the project's shell scripts.
package scripts

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestPrereqsMissingStopsFast: on a host without the packages, where the
// script may not install them, it stops within seconds, before any test,
// with one line naming the exact command to run.
func TestPrereqsMissingStopsFast(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "prereqs.sh")
	cmd.Env = append(cmd.Environ(), "SHUTDOWNLAB_PREREQS_ROOT="+t.TempDir(), "SHUTDOWNLAB_PREREQS_NO_INSTALL=1")
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(t0)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("exit %v after %s, want a failure within 10 s:\n%s", err, took, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := "install them with: sudo sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs node-ws nginx libnginx-mod-http-echo postgresql-15 apache2 haproxy lighttpd'"
	if len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Errorf("output %q, want one line containing %q", out, want)
	}
}
