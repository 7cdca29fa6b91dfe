package scenarios

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/budget"
)

// TestSpecModesAreAuditModes: every mode a scenario may name is one the
// audit knows (budget.Audit compares the spec's mode as a string).
func TestSpecModesAreAuditModes(t *testing.T) {
	for _, m := range []Mode{ModeNone, ModeClose, ModeFull} {
		in := budget.Input{Mode: string(m), GraceMS: 10000, GraceFrom: budget.GraceFromAction, Steps: 1, StepMS: 100}
		if b := budget.Audit(in); b.Verdict == budget.Unknown {
			t.Errorf("mode %s: %s", m, b.Text)
		}
	}
}

func TestSpecBudgetInput(t *testing.T) {
	d := func(s time.Duration) *Duration { v := Duration(s); return &v }
	// jobs is a jobs load (capabilities/queuejobs, registered in this
	// test binary by capabilities_test.go) with clients /db clients.
	jobsLoad := func(clients int) LoadSpec {
		sc, err := parse("t.yaml", []byte(fmt.Sprintf("name: t\nload:\n  kind: jobs\n  jobs: {count: 10, steps: 20, step_ms: 1000, http_clients: %d}\n", clients)))
		if err != nil {
			t.Fatal(err)
		}
		return sc.Spec.Load
	}
	jobs := func(s *Spec) {
		s.Load = jobsLoad(0)
		s.Target.Env = map[string]string{"DRAIN_MS": "8000"}
	}
	tests := []struct {
		name string
		edit func(*Spec)
		want budget.Input
	}{
		{"stop with action.timeout", func(s *Spec) { jobs(s); s.Action.Kind, s.Action.Timeout = ActionStop, d(7*time.Second) },
			budget.Input{GraceMS: 7000, GraceFrom: "action.timeout", Steps: 20, StepMS: 1000}},
		{"stop with target.stop_timeout", func(s *Spec) { jobs(s); s.Action.Kind, s.Target.StopTimeout = ActionStop, d(30*time.Second) },
			budget.Input{GraceMS: 30000, GraceFrom: "target.stop_timeout", Steps: 20, StepMS: 1000}},
		{"stop with Docker's default", func(s *Spec) { jobs(s); s.Action.Kind = ActionStop },
			budget.Input{GraceMS: 10000, GraceFrom: "docker default", Steps: 20, StepMS: 1000}},
		{"roll via stop", func(s *Spec) {
			s.Action.Kind, s.Action.Roll.Via, s.Action.Timeout = ActionRoll, ActionStop, d(5*time.Second)
		},
			budget.Input{GraceMS: 5000, GraceFrom: "action.timeout"}},
		{"roll via signal", func(s *Spec) { s.Action.Kind = ActionRoll }, budget.Input{}},
		{"signal, http clients, again", func(s *Spec) {
			jobs(s)
			s.Load = jobsLoad(4)
			s.Action.Again = d(2 * time.Second)
		}, budget.Input{Steps: 20, StepMS: 1000, HTTPMS: 300, AgainMS: 2000}},
		{"none", func(s *Spec) { s.Action.Kind = ActionNone }, budget.Input{NoAction: true}},
	}
	for _, tt := range tests {
		s := Defaults()
		tt.edit(&s)
		got := SpecBudgetInput(&s)
		tt.want.Mode, tt.want.Env = string(ModeFull), s.Target.Env
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestSpecBudgetCatalog audits every catalog scenario of a load kind with
// work to audit, load.kind jobs (each variant): the audit never panics and always says something.
func TestSpecBudgetCatalog(t *testing.T) {
	scs, err := Catalog()
	if err != nil {
		t.Skip("catalog (another kind may be in progress):", err)
	}
	for _, sc := range scs {
		if d, _ := LoadKindOf(sc.Spec.Load.Kind); d.Work == nil {
			continue
		}
		vs, err := sc.Expand(nil)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name(), err)
		}
		for _, v := range vs {
			if b := SpecBudget(&v.Spec); b.Text == "" || b.Verdict == "" {
				t.Errorf("%s %s: empty audit %+v", sc.Name(), v.Label, b)
			}
		}
	}
}
