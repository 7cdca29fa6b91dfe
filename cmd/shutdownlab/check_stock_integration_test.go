package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/images"
)

// TestCheckStockServers runs check, with its default signal search, on
// every stock-server fixture (internal/images: Debian's nginx, Apache
// httpd, HAProxy, lighttpd, and Caddy, built offline, each set with no
// STOPSIGNAL so docker stop sends SIGTERM) and asserts what their
// authors document: where SIGTERM is a fast stop, check names a defect
// (exit 1) and recommends, by measurement, the documented graceful
// signal; where SIGTERM is graceful, check finds the image clean (exit 0).
// The action phase alternates by half a request between servers (3 s and
// 3.15 s), so a verdict cannot ride on one phase of the clients.
func TestCheckStockServers(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	t.Chdir("../..")
	for i, s := range images.StockServers() {
		t.Run(s.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
			defer cancel()
			ref, _, err := images.StockFixture(ctx, eng, s.Name, nil)
			if err != nil {
				t.Fatal(err)
			}
			at := []string{"3s", "3150ms"}[i%2]
			code, _, verdict := checkFixture(t, ctx, ref, "--path", "/slow?ms=300", "--grace-period", "5s", "--set", "action.at="+at)
			term, _ := s.Rule("SIGTERM")
			if term.Action != images.ActionGraceful {
				if code != exitFailed {
					t.Errorf("exit %d, want %d: SIGTERM is %s for %s (%s)", code, exitFailed, term.Action, s.Product, s.Stop.DocURL)
				}
				want := fmt.Sprintf("STOPSIGNAL %s: measured clean", s.Stop.Graceful)
				if !strings.Contains(verdict, want) {
					t.Errorf("verdict lacks %q (%s documents %s as its graceful stop: %s)", want, s.Product, s.Stop.Graceful, s.Stop.DocURL)
				}
				return
			}
			if code != exitOK || !strings.Contains(verdict, "clean: ") {
				t.Errorf("exit %d, want %d and a clean verdict: SIGTERM is graceful for %s (%s)", code, exitOK, s.Product, s.Stop.DocURL)
			}
		})
	}
}
