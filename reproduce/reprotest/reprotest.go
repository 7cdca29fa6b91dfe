// Package reprotest is what the tests of claims and their rules share,
// wherever the claims live (package reproduce's P1–P12, a capability's
// own): synthetic results (Result, Variant, Runs, Run and the Set
// functions that fill a run's core metrics), and the table-driven check
// of a rule (RuleCase, RunRuleCases) and of a claim's variants
// (VariantsInCatalog). It is imported by tests only.
package reprotest

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Set is one metric assignment on a synthetic run.
type Set func(m *report.Metrics)

// IntP returns a pointer to n.
func IntP(n int) *int { return &n }

// FloatP returns a pointer to x.
func FloatP(x float64) *float64 { return &x }

// BoolP returns a pointer to b.
func BoolP(b bool) *bool { return &b }

// Runs makes n valid runs with the same settings.
func Runs(n int, sets ...Set) []report.Run {
	var out []report.Run
	for range n {
		out = append(out, Run(sets...))
	}
	return out
}

// Run makes one valid run: its accounting holds, the app's log was read
// (no signal handled, no deadline hit, no job step), then sets apply.
func Run(sets ...Set) report.Run {
	m := report.Metrics{ByClass: map[string]int{}, AccountingOK: true, LifecycleLog: true,
		SignalHandled: new(bool), DeadlineHit: new(bool), HandlerJobSteps: new(int), HandlerJobCommitted: new(bool)}
	for _, s := range sets {
		s(&m)
	}
	return report.Run{Name: "run", Valid: true, Metrics: m}
}

// Variant makes a variant of label with runs.
func Variant(label string, rs ...[]report.Run) report.Variant {
	out := report.Variant{Label: label, Slug: label}
	for _, r := range rs {
		out.Runs = append(out.Runs, r...)
	}
	return out
}

// Result makes a result of scenario on runtime rt ("node" or "go"): every
// run's acted-on replica records the runtime, on a synthetic machine.
func Result(scenario, rt string, vs ...report.Variant) *report.Result {
	res := &report.Result{Scenario: scenario, Variants: vs,
		Fingerprint: record.Fingerprint{CPU: "Synthetic CPU", Cores: 2, Kernel: "6.1.0", OS: "linux/amd64",
			DockerVersion: "20.10.24", DockerAPI: "1.41", GoVersion: "go1.26.8"}}
	ver := map[string]string{"node": "node v20.20.2", "go": "go go1.26.8"}[rt]
	for i := range res.Variants {
		for j := range res.Variants[i].Runs {
			r := &res.Variants[i].Runs[j]
			r.Meta.Replicas = []record.Replica{{Name: "a", Runtime: ver}}
			r.Meta.Run = j + 1
		}
	}
	return res
}

// RuleCase is one synthetic result and the verdict a claim's rule must
// give it.
type RuleCase struct {
	// Name names the case; Claim is the claim's id.
	Name, Claim string
	// Res is the result judged.
	Res *report.Result
	// Want is the status expected ("" = not_run).
	Want reproduce.Status
	// Why and Cell are substrings of the verdict's Why and Measured (""
	// = no check).
	Why, Cell string
	// Before, when set, runs first in the case's subtest (package
	// reproduce's tests stand in metrics with it).
	Before func(t *testing.T)
}

// ClaimByID returns the claim with id among claims, failing the test
// when there is none.
func ClaimByID(t *testing.T, claims []reproduce.Claim, id string) reproduce.Claim {
	t.Helper()
	for _, c := range claims {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("claim %s not among %d claims", id, len(claims))
	return reproduce.Claim{}
}

// RunRuleCases judges each case's result by its claim (among claims) in
// a subtest and checks the status, the rule, and the why and measured
// substrings.
func RunRuleCases(t *testing.T, claims []reproduce.Claim, cases []RuleCase) {
	for _, tc := range cases {
		t.Run(tc.Claim+"/"+tc.Name, func(t *testing.T) {
			if tc.Before != nil {
				tc.Before(t)
			}
			want := tc.Want
			if want == "" {
				want = reproduce.NotRun
			}
			c := ClaimByID(t, claims, tc.Claim)
			got := c.Judge(tc.Res)
			if got.Status != want {
				t.Fatalf("status %s, want %s\nwhy: %s\nmeasured: %s", got.Status, want, got.Why, got.Measured)
			}
			if got.Rule != c.Rule || got.Rule == "" {
				t.Errorf("rule %q, want the claim's %q", got.Rule, c.Rule)
			}
			if !strings.Contains(got.Why, tc.Why) {
				t.Errorf("why %q, want it to contain %q", got.Why, tc.Why)
			}
			if !strings.Contains(got.Measured, tc.Cell) {
				t.Errorf("measured %q, want it to contain %q", got.Measured, tc.Cell)
			}
			if want == reproduce.Reproduced && got.Why != "" {
				t.Errorf("reproduced with why %q", got.Why)
			}
		})
	}
}

// VariantsInCatalog checks that every variant label the claims judge is
// one their catalog scenario expands to on runtime rt (MatchLabel), so a
// renamed axis breaks a test rather than turning a claim into "variant
// not in the result" after a run.
func VariantsInCatalog(t *testing.T, claims []reproduce.Claim, rt string) {
	t.Helper()
	for _, c := range claims {
		sc, err := scenarios.Find(c.Scenario)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		vs, err := sc.Expand([]string{"runs=1", "target.runtime=" + rt})
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		for _, want := range c.Variants {
			found := false
			for _, v := range vs {
				found = found || reproduce.MatchLabel(v.Label, want)
			}
			if !found {
				t.Errorf("%s: variant %q not among %s's variants", c.ID, want, c.Scenario)
			}
		}
	}
}
