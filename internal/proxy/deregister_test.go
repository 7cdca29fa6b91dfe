package proxy

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestDeregistered: the admin endpoint listens on the container's loopback
// exactly when the scenario deregisters, and the deregistered configuration
// is the same configuration without the removed upstream.
func TestDeregistered(t *testing.T) {
	const base = "name: t\ntopology: caddy\nreplicas: 2\naction:\n  kind: roll\nobserve:\n  window: 5s\nproxy:\n  health_uri: none\n"
	ups := []string{"replica-0", "replica-1"}
	tests := []struct {
		name      string
		yaml      string
		removed   string
		wantAdmin string // admin object, compact
		wantUps   []string
		wantErr   string
	}{
		{"no deregistration: admin off", base, "", `{"disabled":true,"config":{"persist":false}}`, []string{"replica-0:8080", "replica-1:8080"}, ""},
		{"deregister replica-0", base + "  deregister_after: 1s\n", "replica-0", `{"listen":"localhost:2019","config":{"persist":false}}`, []string{"replica-1:8080"}, ""},
		{"deregister replica-1", base + "  deregister_after: 0s\n", "replica-1", `{"listen":"localhost:2019","config":{"persist":false}}`, []string{"replica-0:8080"}, ""},
		{"not an upstream", base + "  deregister_after: 0s\n", "replica-7", "", nil, `"replica-7" is not an upstream`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := proxyOf(t, tt.yaml)
			full, err := Config(p, ups, Port)
			if err != nil {
				t.Fatal(err)
			}
			cfg := full
			if tt.removed != "" {
				cfg, err = Deregistered(p, ups, Port, tt.removed)
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("err %v, want %q", err, tt.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			var c struct {
				Admin json.RawMessage
				Apps  struct {
					HTTP struct {
						Servers map[string]struct {
							Routes []struct {
								Handle []struct {
									Upstreams []struct{ Dial string }
								}
							}
						}
					}
				}
			}
			if err := json.Unmarshal(cfg, &c); err != nil {
				t.Fatal(err)
			}
			if got := compact(t, c.Admin); got != tt.wantAdmin {
				t.Errorf("admin %s, want %s", got, tt.wantAdmin)
			}
			var got []string
			for _, u := range c.Apps.HTTP.Servers["proxy"].Routes[0].Handle[0].Upstreams {
				got = append(got, u.Dial)
			}
			if strings.Join(got, " ") != strings.Join(tt.wantUps, " ") {
				t.Errorf("upstreams %v, want %v", got, tt.wantUps)
			}
			// Nothing but the upstream list differs.
			if tt.removed != "" {
				var a, b map[string]any
				if json.Unmarshal(full, &a) != nil || json.Unmarshal(cfg, &b) != nil {
					t.Fatal("configs do not decode")
				}
				h := a["apps"].(map[string]any)["http"].(map[string]any)["servers"].(map[string]any)["proxy"].(map[string]any)["routes"].([]any)[0].(map[string]any)["handle"].([]any)[0].(map[string]any)
				var kept []any
				for _, u := range h["upstreams"].([]any) {
					if u.(map[string]any)["dial"] != Upstream(tt.removed, Port) {
						kept = append(kept, u)
					}
				}
				h["upstreams"] = kept
				if !reflect.DeepEqual(a, b) {
					t.Errorf("deregistered config differs beyond the upstream:\n%s\nvs\n%s", full, cfg)
				}
			}
		})
	}
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(orderedAdmin(m))
	return string(out)
}

// orderedAdmin re-encodes the admin object in the generator's key order.
func orderedAdmin(m map[string]any) obj {
	var o obj
	for _, k := range []string{"disabled", "listen", "config"} {
		if v, ok := m[k]; ok {
			o = append(o, kv(k, v))
		}
	}
	return o
}
