package record_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// TestRenamedFieldsKeepWireNames: Go fields renamed so that a probe is
// only the raw-socket probe keep the JSON names results recorded, so old
// and new events.json read alike.
func TestRenamedFieldsKeepWireNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    any
		want string
	}{
		{"NewPod readiness probes", record.NewPod{ReadinessProbes: 3, ReadinessProbesFailed: 1},
			`{"name":"","upstream":"","started_ns":0,"probes":3,"probes_failed":1}`},
		{"Rollout health check", record.Rollout{HealthCheck: "liveness"}, `"probe":"liveness"`},
	} {
		b, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); !strings.Contains(got, tt.want) {
			t.Errorf("%s: %s lacks %s", tt.name, got, tt.want)
		}
		// And back: the recorded names decode onto the renamed fields.
		switch v := tt.v.(type) {
		case record.NewPod:
			var back record.NewPod
			if err := json.Unmarshal(b, &back); err != nil || back != v {
				t.Errorf("%s: decoded %+v, %v", tt.name, back, err)
			}
		case record.Rollout:
			var back record.Rollout
			if err := json.Unmarshal(b, &back); err != nil || back.HealthCheck != v.HealthCheck {
				t.Errorf("%s: decoded %+v, %v", tt.name, back.HealthCheck, err)
			}
		}
	}
}
