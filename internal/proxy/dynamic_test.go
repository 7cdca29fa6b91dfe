package proxy

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestDynamicConfig: DNS upstreams replace the static list; the health
// checks and the upstream header are Config's.
func TestDynamicConfig(t *testing.T) {
	sc, err := scenarios.Find("swarm-rollout")
	if err != nil {
		t.Fatal(err)
	}
	b, err := DynamicConfig(sc.Spec.Proxy, "tasks.svc", 8080, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Routes []struct {
						Handle []map[string]json.RawMessage `json:"handle"`
					} `json:"routes"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	h := cfg.Apps.HTTP.Servers["proxy"].Routes[0].Handle[0]
	var dyn map[string]any
	if err := json.Unmarshal(h["dynamic_upstreams"], &dyn); err != nil {
		t.Fatalf("dynamic_upstreams: %v in %s", err, b)
	}
	if dyn["source"] != "a" || dyn["name"] != "tasks.svc" || dyn["port"] != "8080" || dyn["refresh"] != "1s" {
		t.Errorf("dynamic_upstreams %v", dyn)
	}
	for _, k := range []string{"health_checks", "headers"} {
		if _, ok := h[k]; !ok {
			t.Errorf("no %s in %s", k, b)
		}
	}
	if _, ok := h["upstreams"]; ok {
		t.Errorf("static upstreams beside dynamic ones")
	}
}
