package gate

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestSetupSourcesAgree: for the fields both give, the Setup read from a
// variant's spec (SpecSetup) equals the one read from what the runner
// recorded of its run (RecordedSetup), so a result whose events.json is
// missing compares against one that has it.
func TestSetupSourcesAgree(t *testing.T) {
	var vs []scenarios.Variant
	for _, action := range []string{"{kind: signal, stop_signal: quit, at: 2500ms}", "{kind: stop, at: 2500ms, grace_period: 7s}", "{kind: roll, stop_signal: quit, at: 2500ms}"} {
		src := "name: s\nruns: 1\nbaseline: true\ntopology: caddy\nreplicas: 2\naction: " + action + "\n"
		sc, err := scenarios.Parse("setup.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		v, err := sc.Expand(nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range v {
			if !v[i].Baseline {
				v[i].Label = string(v[i].Spec.Action.Kind)
			}
		}
		vs = append(vs, v...)
	}
	seven := 7
	recorded := map[string]*record.Action{
		"signal":   {Kind: "signal", Signal: "SIGQUIT", AfterMs: 2500},
		"stop":     {Kind: "stop", AfterMs: 2500, StopTimeoutS: &seven},
		"roll":     {Kind: "signal", Roll: true, Signal: "SIGQUIT", AfterMs: 2500},
		"baseline": nil,
	}
	for _, v := range vs {
		a, ok := recorded[v.Label]
		if !ok {
			t.Fatalf("variant %s has no recorded action here", v.Label)
		}
		m := record.Meta{Scenario: "s", Topology: "caddy", Replicas: []record.Replica{{Name: "r0"}, {Name: "r1"}}, Action: a, Baseline: v.Baseline}
		rec := RecordedSetup(result(variant(v.Label, report.Run{Meta: m})))[v.Label]
		spec := SpecSetup(v.Label, v.Spec)[v.Label]
		if len(rec) < 4 {
			t.Errorf("%s: recorded setup %v lacks fields", v.Label, rec)
		}
		for f, want := range rec {
			if got, ok := spec[f]; ok && got != want {
				t.Errorf("%s: %s: from the spec %q, from the record %q", v.Label, f, got, want)
			}
		}
		for _, f := range []string{"load.kind", "topology", "replicas", "action.kind"} {
			if spec[f] != rec[f] {
				t.Errorf("%s: %s: from the spec %q, from the record %q", v.Label, f, spec[f], rec[f])
			}
		}
	}
}
