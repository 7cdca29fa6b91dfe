package gate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// Two identical runs measured 15.1 and 20.4 ms (x1.35): under the default
// noise floor that is not a regression; with the floor off it is.
func TestCompareNoiseFloor(t *testing.T) {
	old, cur := met(0, 0, 1000, 15.1), met(0, 0, 1000, 20.4)
	for _, tt := range []struct {
		name      string
		tol       Tolerance
		regressed bool
	}{
		{"default floor 25 ms", DefaultTolerance(), false},
		{"floor off", Tolerance{Ratio: 1.2, MinMs: 0}, true},
		{"floor below the difference", Tolerance{Ratio: 1.2, MinMs: 5}, true},
	} {
		rs := Compare(result(variant("v", valid(cur))), result(variant("v", valid(old))), tt.tol)
		r, _ := row(rs, "v", "p99_ms")
		if r.Regressed != tt.regressed || r.Change != "x1.35" {
			t.Errorf("%s: p99 15.1 -> 20.4: %+v, want regressed=%v", tt.name, r, tt.regressed)
		}
	}
	if DefaultTolerance().MinMs != DefaultMinMs || DefaultMinMs != 25 {
		t.Errorf("default noise floor %g, documented as 25 ms", DefaultTolerance().MinMs)
	}
}

// runMeta is an events.json of a run with one replica, a SIGTERM at 3 s.
func runMeta(scenario string) record.Meta {
	return record.Meta{Scenario: scenario, Valid: true, Replicas: []record.Replica{{Name: "r0"}},
		Action: &record.Action{Kind: "signal", Signal: "SIGTERM", AfterMs: 3000}}
}

func withMeta(r report.Run, m record.Meta) report.Run { r.Meta = m; return r }

func TestComparable(t *testing.T) {
	m := met(0, 0, 1000, 300)
	base := func() *report.Result {
		return result(variant("a", withMeta(valid(m), runMeta("direct-inflight"))), variant("b", valid(m)))
	}
	setup := func(clients, duration string) Setup {
		s := Setup{}
		for _, v := range []string{"a", "b"} {
			s.Set(v, "load.clients", clients)
			s.Set(v, "load.duration", duration)
		}
		return s
	}
	tests := []struct {
		name     string
		old      func() *report.Result
		newSetup Setup
		want     []string // each in some reason; none: comparable
	}{
		// Same scenario, variants, load: comparable.
		{"same", base, setup("20", "6s"), nil},
		// Different load: not comparable, naming the field and both values.
		{"load differs", base, setup("5", "3s"), []string{"variant a: load.clients: new 5, baseline 20", "variant b: load.duration: new 3s, baseline 6s"}},
		// Another scenario.
		{"scenario", func() *report.Result { r := base(); r.Scenario = "deadline"; return r }, setup("20", "6s"),
			[]string{`scenario: new "direct-inflight", baseline "deadline"`}},
		// Other variants.
		{"variants", func() *report.Result { r := base(); r.Variants[1].Label = "c"; return r }, setup("20", "6s"),
			[]string{"variants: new [a, b], baseline [a, c]"}},
		// A baseline whose runs are all invalid compares nothing.
		{"all invalid", func() *report.Result {
			return result(variant("a", invalid("target never ready")), variant("b", invalid("agent died")))
		}, setup("20", "6s"), []string{"the baseline has no valid run (2 runs, none counts: target never ready; agent died)"}},
		// One variant without a valid run in the baseline.
		{"variant invalid", func() *report.Result {
			return result(variant("a", valid(m)), variant("b", invalid("agent died")))
		}, setup("20", "6s"), []string{"variant b: no valid run in the baseline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Comparable(base(), tt.old(), tt.newSetup, setup("20", "6s"))
			if len(tt.want) == 0 && len(got) > 0 {
				t.Errorf("not comparable: %q", got)
			}
			all := strings.Join(got, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("reasons %q lack %q", got, w)
				}
			}
		})
	}
}

// What events.json records of the action, topology, replicas and load kind.
func TestRecordedSetup(t *testing.T) {
	roll := runMeta("s")
	roll.Topology, roll.Action.Roll, roll.Action.Signal = "caddy", true, ""
	roll.Action.Kind = "stop"
	roll.Replicas = append(roll.Replicas, record.Replica{Name: "r1"}, record.Replica{Name: "r0-new"})
	roll.Replacement = &record.Replacement{Name: "r0-new"}
	probe := runMeta("s")
	probe.LoadKind = "probe"
	res := result(variant("sig", withMeta(valid(met(0, 0, 1, 1)), runMeta("s"))),
		variant("roll", report.Run{}, withMeta(valid(met(0, 0, 1, 1)), roll)),
		variant("probe", withMeta(valid(met(0, 0, 1, 1)), probe)))
	s := RecordedSetup(res)
	want := map[string]map[string]string{
		"sig":   {"action.kind": "signal", "action.signal": "SIGTERM", "topology": "direct", "replicas": "1", "load.kind": "agent"},
		"roll":  {"action.kind": "roll via stop", "topology": "caddy", "replicas": "2"},
		"probe": {"load.kind": "probe"},
	}
	for v, fs := range want {
		for f, val := range fs {
			if s[v][f] != val {
				t.Errorf("%s %s = %q, want %q", v, f, s[v][f], val)
			}
		}
	}
	if !strings.HasSuffix(s["sig"]["action.at"], " ms") {
		t.Errorf("action.at = %q", s["sig"]["action.at"])
	}
}

// The comparison says what it compared: scenario, variants, valid runs on
// each side, tolerances; "not comparable" says why.
func TestComparisonStatesWhatItCompared(t *testing.T) {
	oldRes, newRes := threeVariants(), threeVariants()
	info := NewInfo(newRes, oldRes, DefaultTolerance())
	var b bytes.Buffer
	if err := WriteComparison(&b, info, Compare(newRes, oldRes, DefaultTolerance())); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Scenario: `direct-inflight`", "Variants: mode=full, mode=close, mode=none",
		"Valid runs: new 8 of 9, baseline 8 of 9", "new − old > 25 ms (noise floor)", "Valid runs: new 2 of 3, baseline 2 of 3."} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteNotComparable(&b, info, []string{"variant a: load.clients: new 5, baseline 20"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**Not comparable**") || !strings.Contains(b.String(), "- variant a: load.clients: new 5, baseline 20") {
		t.Errorf("not-comparable output:\n%s", b.String())
	}
}

func TestUnrecorded(t *testing.T) {
	n, o := Setup{}, Setup{}
	n.Set("a", "load.clients", "5")
	n.Set("a", "topology", "direct")
	o.Set("a", "topology", "direct")
	got := Unrecorded(n, o)
	if len(got) != 1 || got[0] != "the baseline result does not record load.clients: not compared" {
		t.Errorf("Unrecorded = %q", got)
	}
}
