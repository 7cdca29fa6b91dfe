package proxy

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json")

// proxyOf returns the proxy block of a scenario given as YAML text.
func proxyOf(t *testing.T, src string) scenarios.Proxy {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Spec.Proxy
}

// TestConfigGolden renders the configuration of representative proxy
// blocks and compares it with testdata/<name>.json (-update rewrites).
func TestConfigGolden(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		upstreams []string
	}{
		// defaults: active checks on /readyz every 1s, no retries, no passive checks
		{"defaults", "name: t\ntopology: caddy\nreplicas: 2\n", []string{"replica-0", "replica-1"}},
		// P11: retries for GETs for 5s every 100ms
		{"retry", "name: t\ntopology: caddy\nreplicas: 2\nproxy: {try_duration: 5s, try_interval: 100ms}\n", []string{"replica-0", "replica-1"}},
		// retries for POSTs too, passive checks, another policy, a replacement slot
		{"retry-post-passive", "name: t\ntopology: caddy\nreplicas: 2\nproxy:\n  policy: least_conn\n  try_duration: 2s\n  retry_methods: [get, POST]\n  fail_duration: 10s\n  max_fails: 3\n", []string{"replica-0", "replica-1", "replica-2"}},
		// no active health checks at all
		{"no-health", "name: t\ntopology: caddy\nproxy: {health_uri: none}\n", []string{"replica-0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Config(proxyOf(t, tt.yaml), tt.upstreams, Port)
			if err != nil {
				t.Fatal(err)
			}
			var any map[string]any
			if err := json.Unmarshal(got, &any); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			golden := filepath.Join("testdata", tt.name+".json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs (go test ./internal/proxy -update, then review):\n%s", golden, got)
			}
		})
	}
}

// TestConfigInvariants: whatever the scenario, the admin endpoint is off,
// automatic HTTPS is off, and retries appear only with try_duration > 0.
func TestConfigInvariants(t *testing.T) {
	for _, src := range []string{
		"name: t\ntopology: caddy\n",
		"name: t\ntopology: caddy\nproxy: {try_duration: 1s}\n",
	} {
		got, err := Config(proxyOf(t, src), []string{"replica-0"}, Port)
		if err != nil {
			t.Fatal(err)
		}
		s := string(got)
		for _, want := range []string{`"disabled": true`, `"automatic_https": {`, `"listen": [`, `":8080"`, `"dial": "replica-0:8080"`} {
			if !strings.Contains(s, want) {
				t.Errorf("%q: config lacks %s", src, want)
			}
		}
		if retries := strings.Contains(s, "try_duration"); retries != strings.Contains(src, "try_duration") {
			t.Errorf("%q: try_duration in config = %v", src, retries)
		}
	}
	if _, err := Config(scenarios.Defaults().Proxy, nil, Port); err == nil {
		t.Error("no upstreams: want an error")
	}
}
