package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestAuditBudget(t *testing.T) {
	grace10 := func(in BudgetInput) BudgetInput { in.GraceMS, in.GraceFrom = 10000, "action.timeout"; return in }
	env := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		in      BudgetInput
		verdict BudgetVerdict
		exitBy  int
		text    []string // substrings of Text
	}{
		{"no action", BudgetInput{Mode: ModeFull, NoAction: true}, BudgetNoAction, 0, []string{"no stop action"}},
		{"mode none: no shutdown", grace10(BudgetInput{Mode: ModeNone, Steps: 20, StepMS: 1000}), BudgetNoShutdown, 0, []string{"mode none", "no final log"}},
		{"J1 close waits for a whole job", grace10(BudgetInput{Mode: ModeClose, Steps: 20, StepMS: 1000, HTTPMS: 300}), BudgetExceeds, 20000,
			[]string{"budget exceeds", "a whole job, 20 × 1s", ">= grace 10s (action.timeout)", "SIGKILL"}},
		{"close: a short job fits", grace10(BudgetInput{Mode: ModeClose, Steps: 3, StepMS: 500}), BudgetFits, 1500, []string{"budget fits", "exits by 1.5s"}},
		{"close: the request is longer than the job", grace10(BudgetInput{Mode: ModeClose, Steps: 1, StepMS: 100, HTTPMS: 300}), BudgetFits, 300, []string{"a request of 300ms"}},
		{"J2 full hands back at the worker deadline", grace10(BudgetInput{Mode: ModeFull, Steps: 20, StepMS: 1000}), BudgetFits, 6000,
			[]string{"exits by 6s (WORKER_DEADLINE_MS 5s + a step of 1s) < grace 10s", "handed back"}},
		{"full: a short job completes", grace10(BudgetInput{Mode: ModeFull, Steps: 3, StepMS: 500}), BudgetFits, 1500, []string{"a whole job, 3 × 500ms"}},
		{"full: the pre-stop wait dominates", grace10(BudgetInput{Mode: ModeFull, Steps: 2, StepMS: 100, HTTPMS: 300, Env: env("PRESTOP_MS", "3000")}), BudgetFits, 3300,
			[]string{"PRESTOP_MS 3s + a request of 300ms"}},
		{"full: a long worker deadline exceeds", grace10(BudgetInput{Mode: ModeFull, Steps: 20, StepMS: 1000, Env: env("WORKER_DEADLINE_MS", "9500")}), BudgetExceeds, 10500, nil},
		{"J3 drain deadline = grace", BudgetInput{Mode: ModeFull, GraceMS: 30000, GraceFrom: "target.stop_timeout", Steps: 60, StepMS: 1000,
			Env: env("DRAIN_MS", "30000", "WORKER_DEADLINE_MS", "60000")}, BudgetExceeds, 30000,
			[]string{"exits by 30s (DRAIN_MS 30s) >= grace 30s (target.stop_timeout)", "no final log"}},
		{"J3 fixed: drain deadline under the grace", BudgetInput{Mode: ModeFull, GraceMS: 30000, GraceFrom: "target.stop_timeout", Steps: 60, StepMS: 1000,
			Env: env("DRAIN_MS", "25000", "WORKER_DEADLINE_MS", "60000")}, BudgetFits, 25000, []string{"exit 1 at DRAIN_MS"}},
		{"J5 restart moves the drain deadline past the grace", grace10(BudgetInput{Mode: ModeFull, Steps: 20, StepMS: 1000, AgainMS: 5000,
			Env: env("DRAIN_MS", "8000", "WORKER_DEADLINE_MS", "60000", "REPEAT_SIGNAL", "restart")}), BudgetExceeds, 13000,
			[]string{"DRAIN_MS 8s after the signal again at 5s", "REPEAT_SIGNAL=restart"}},
		{"J5 ignore keeps it", grace10(BudgetInput{Mode: ModeFull, Steps: 20, StepMS: 1000, AgainMS: 5000,
			Env: env("DRAIN_MS", "8000", "WORKER_DEADLINE_MS", "60000")}), BudgetFits, 8000, nil},
		{"J4 pool closed first: a note", grace10(BudgetInput{Mode: ModeFull, Steps: 2, StepMS: 100, Env: env("POOL_CLOSE", "first")}), BudgetFits, 200,
			[]string{"POOL_CLOSE=first"}},
		{"signal: no grace period", BudgetInput{Mode: ModeClose, Steps: 20, StepMS: 1000}, BudgetNoGrace, 20000, []string{"no grace period", "exits by 20s"}},
		{"a variable that does not parse", grace10(BudgetInput{Mode: ModeFull, Env: env("DRAIN_MS", "5s")}), BudgetUnknown, 0, []string{`DRAIN_MS="5s"`}},
		{"an unknown mode", grace10(BudgetInput{}), BudgetUnknown, 0, []string{`mode ""`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := AuditBudget(tt.in)
			if b.Verdict != tt.verdict || b.ExitByMS != tt.exitBy || b.Fits != (tt.verdict == BudgetFits) {
				t.Errorf("verdict %s fits %v exit by %d, want %s %d (%s)", b.Verdict, b.Fits, b.ExitByMS, tt.verdict, tt.exitBy, b.Text)
			}
			for _, s := range tt.text {
				if !strings.Contains(b.Text, s) {
					t.Errorf("text %q lacks %q", b.Text, s)
				}
			}
			if strings.Contains(b.Text, "\n") {
				t.Errorf("text is not one line: %q", b.Text)
			}
		})
	}
}

func TestSpecBudgetInput(t *testing.T) {
	d := func(s time.Duration) *Duration { v := Duration(s); return &v }
	jobs := func(s *Spec) {
		s.Load.Kind = LoadJobs
		s.Load.Jobs = &JobsLoad{Count: 10, Steps: 20, StepMS: 1000, HTTPMS: 300}
		s.Target.Env = map[string]string{"DRAIN_MS": "8000"}
	}
	tests := []struct {
		name string
		edit func(*Spec)
		want BudgetInput
	}{
		{"stop with action.timeout", func(s *Spec) { jobs(s); s.Action.Kind, s.Action.Timeout = ActionStop, d(7*time.Second) },
			BudgetInput{GraceMS: 7000, GraceFrom: "action.timeout", Steps: 20, StepMS: 1000}},
		{"stop with target.stop_timeout", func(s *Spec) { jobs(s); s.Action.Kind, s.Target.StopTimeout = ActionStop, d(30*time.Second) },
			BudgetInput{GraceMS: 30000, GraceFrom: "target.stop_timeout", Steps: 20, StepMS: 1000}},
		{"stop with Docker's default", func(s *Spec) { jobs(s); s.Action.Kind = ActionStop },
			BudgetInput{GraceMS: 10000, GraceFrom: "docker default", Steps: 20, StepMS: 1000}},
		{"roll via stop", func(s *Spec) {
			s.Action.Kind, s.Action.Roll.Via, s.Action.Timeout = ActionRoll, ActionStop, d(5*time.Second)
		},
			BudgetInput{GraceMS: 5000, GraceFrom: "action.timeout"}},
		{"roll via signal", func(s *Spec) { s.Action.Kind = ActionRoll }, BudgetInput{}},
		{"signal, http clients, again", func(s *Spec) {
			jobs(s)
			s.Load.Jobs.HTTPClients = 4
			s.Action.Again = d(2 * time.Second)
		}, BudgetInput{Steps: 20, StepMS: 1000, HTTPMS: 300, AgainMS: 2000}},
		{"none", func(s *Spec) { s.Action.Kind = ActionNone }, BudgetInput{NoAction: true}},
	}
	for _, tt := range tests {
		s := Defaults()
		tt.edit(&s)
		got := SpecBudgetInput(&s)
		tt.want.Mode, tt.want.Env = ModeFull, s.Target.Env
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestSpecBudgetCatalog audits every catalog scenario of load.kind jobs
// (each variant): the audit never panics and always says something.
func TestSpecBudgetCatalog(t *testing.T) {
	scs, err := Catalog()
	if err != nil {
		t.Skip("catalog (another kind may be in progress):", err)
	}
	for _, sc := range scs {
		if sc.Spec.Load.Kind != LoadJobs {
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
