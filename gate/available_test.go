package gate

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/report"
)

// Every optional metric of the catalog must say what it needs to exist in
// words a user can act on; otherwise CheckAvailable would let an
// expectation on it through to fail on null after the run time was spent.
// A new report.Need needs an entry in requirements.
func TestEveryOptionalMetricHasARequirement(t *testing.T) {
	for _, d := range report.Defs() {
		if d.Optional != report.Always && Requires(d.Name) == "" {
			t.Errorf("optional metric %q (needs %q): Requires says nothing; add the need to requirements in gate/available.go", d.Name, d.Optional)
		}
		if d.Optional == report.Always && Requires(d.Name) != "" {
			t.Errorf("metric %q exists in every run but Requires says %q", d.Name, Requires(d.Name))
		}
	}
}

func TestCheckAvailable(t *testing.T) {
	tests := []struct {
		expr string
		caps Capabilities
		want string // "" = accepted
	}{
		// ghost_writes needs a POST /write in the mix.
		{"ghost_writes == 0", Capabilities{}, `col 1: metric "ghost_writes" cannot exist in this scenario: it needs a POST /write in load.mix`},
		{"ghost_writes == 0", Capabilities{Writes: true}, ""},
		// probe metrics need load.kind probe, wherever they appear.
		{"failed == 0 && probe_server_closed == true", Capabilities{Writes: true}, `col 16: metric "probe_server_closed"`},
		{"probe_server_closed == true", Capabilities{Probe: true}, ""},
		// ws metrics need load.kind ws.
		{"ws_close_1006 == 0", Capabilities{Probe: true}, `col 1: metric "ws_close_1006" cannot exist in this scenario: it needs load.kind ws`},
		{"ws_close_1006 == 0 && ws_budget_fits == true", Capabilities{WS: true}, ""},
		// cluster metrics need the cluster target.
		{"forks_after_signal == 0", Capabilities{WS: true}, `col 1: metric "forks_after_signal" cannot exist in this scenario: it needs target.program cluster`},
		{"forks_after_signal == 0 && resurrection_ms < 100", Capabilities{Cluster: true}, ""},
		// baseline metrics need a baseline variant.
		{"p99_vs_baseline < 2", Capabilities{}, "baseline: true"},
		// baseline.NAME of a write metric needs writes too.
		{"failed <= baseline.lost_writes", Capabilities{}, `"lost_writes"`},
		// metrics every run has are always available.
		{"dropped_inflight == 0 && p99_ms < 1.3 * baseline.p99_ms", Capabilities{}, ""},
	}
	for _, tt := range tests {
		err := mustParse(tt.expr).CheckAvailable(tt.caps)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s with %+v: %v", tt.expr, tt.caps, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s with %+v: %v, want %q", tt.expr, tt.caps, err, tt.want)
		}
	}
}
