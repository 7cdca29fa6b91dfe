package gate

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities"
	"github.com/shutdownlab/shutdownlab/capabilities/cluster"
	"github.com/shutdownlab/shutdownlab/capabilities/pod"
	"github.com/shutdownlab/shutdownlab/capabilities/probe"
	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs"
	"github.com/shutdownlab/shutdownlab/capabilities/rollout"
	"github.com/shutdownlab/shutdownlab/capabilities/websockets"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestMain installs the program's capabilities, as its Main does
// (capabilities.Install): the needs table and the catalog the tests read
// are the program's.
func TestMain(m *testing.M) {
	capabilities.Install()
	os.Exit(m.Run())
}

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
		{"ghost_writes == 0", Capabilities{report.NeedsWrites: true}, ""},
		// probe metrics need load.kind probe, wherever they appear.
		{"failed == 0 && probe_server_closed == true", Capabilities{report.NeedsWrites: true}, `col 16: metric "probe_server_closed"`},
		{"probe_server_closed == true", Capabilities{probe.Need: true}, ""},
		// ws metrics need load.kind ws.
		{"ws_close_1006 == 0", Capabilities{probe.Need: true}, `col 1: metric "ws_close_1006" cannot exist in this scenario: it needs load.kind ws`},
		{"ws_close_1006 == 0 && ws_budget_fits == true", Capabilities{websockets.Need: true}, ""},
		// cluster metrics need the cluster target.
		{"forks_after_signal == 0", Capabilities{websockets.Need: true}, `col 1: metric "forks_after_signal" cannot exist in this scenario: it needs target.program cluster`},
		{"forks_after_signal == 0 && resurrection_ms < 100", Capabilities{cluster.Need: true}, ""},
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

// The needs table names each need once, completely, and has a row for
// every report.Need a metric uses.
func TestNeedsTable(t *testing.T) {
	if err := checkNeeds(); err != nil {
		t.Fatal(err)
	}
	for _, d := range report.Defs() {
		if _, ok := needOf(d.Optional); d.Optional != report.Always && !ok {
			t.Errorf("metric %q needs %q, which has no row in gate/needs.go", d.Name, d.Optional)
		}
	}
}

// What a scenario's variants can produce, per need: the jobs and rollout
// metrics are known from the spec too (they used to be missing from the
// check before a run, and rollout from the check of a saved result).
func TestCapabilitiesOfVariants(t *testing.T) {
	v := func(f func(*scenarios.Spec), baseline bool) scenarios.Variant {
		sp := scenarios.Spec{Load: scenarios.LoadSpec{Mix: []scenarios.Request{{Method: "GET", Path: "/slow"}}}}
		f(&sp)
		return scenarios.Variant{Spec: sp, Baseline: baseline}
	}
	none := func(*scenarios.Spec) {}
	tests := []struct {
		name string
		vs   []scenarios.Variant
		want []report.Need
	}{
		{"plain agent load", []scenarios.Variant{v(none, false)}, nil},
		{"writes", []scenarios.Variant{v(func(s *scenarios.Spec) {
			s.Load.Mix = append(s.Load.Mix, scenarios.Request{Method: "POST", Path: "/write"})
		}, false)}, []report.Need{report.NeedsWrites}},
		{"writes ignored by a probe", []scenarios.Variant{v(func(s *scenarios.Spec) {
			s.Load.Kind, s.Load.Mix = probe.LoadKind, []scenarios.Request{{Method: "POST", Path: "/write"}}
		}, false)}, []report.Need{probe.Need}},
		{"ws on the cluster target", []scenarios.Variant{v(func(s *scenarios.Spec) { s.Load.Kind, s.Target.Program = websockets.LoadKind, cluster.Program }, false)},
			[]report.Need{websockets.Need, cluster.Need}},
		{"jobs", []scenarios.Variant{v(func(s *scenarios.Spec) { s.Load.Kind = queuejobs.LoadKind }, false)}, []report.Need{queuejobs.Need}},
		{"rollout", []scenarios.Variant{v(func(s *scenarios.Spec) { s.Action.Kind = scenarios.ActionRollout }, false)}, []report.Need{rollout.Need}},
		{"terminate", []scenarios.Variant{v(func(s *scenarios.Spec) { s.Action.Kind = scenarios.ActionTerminate }, false)}, []report.Need{pod.Need}},
		{"a baseline among the variants", []scenarios.Variant{v(none, false), v(none, true)}, []report.Need{report.NeedsBaseline}},
	}
	for _, tt := range tests {
		c := CapabilitiesOfVariants(tt.vs)
		for _, n := range needs() {
			want := slices.Contains(tt.want, n.name) || n.ofSpec == nil
			if c.Has(n.name) != want {
				t.Errorf("%s: Has(%s) = %v, want %v", tt.name, n.name, c.Has(n.name), want)
			}
		}
	}
	if !(Capabilities{}).Merge(Capabilities{queuejobs.Need: true}, Capabilities{websockets.Need: true}).Has(queuejobs.Need) {
		t.Error("Merge lost a need")
	}
}
