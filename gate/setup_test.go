package gate

import (
	"bytes"
	"slices"
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

// Unrecorded notes the fields one side lacks, for the variants both sides
// have, naming the variants unless it is all of them; no note covers a
// field that Comparable compares for the same variant.
func TestUnrecorded(t *testing.T) {
	type fields = map[string]map[string]string
	tests := []struct {
		name       string
		newLabels  []string
		n, o       fields
		want       []string
		wantReason string // a reason Comparable gives beside the notes
	}{
		{"a field one side never records", []string{"a", "b"},
			fields{"a": {"load.clients": "5", "topology": "direct"}, "b": {"load.clients": "5"}},
			fields{"a": {"topology": "direct"}, "b": {}},
			[]string{"the baseline result does not record load.clients: not compared"}, ""},
		// A run killed in variant b after a finished: the note names b
		// only, and a's signal is still compared.
		{"a variant whose runs never finished", []string{"a", "b"},
			fields{"a": {"action.signal": "SIGTERM", "action.timeout": "10s"}, "b": {}},
			fields{"a": {"action.signal": "SIGINT", "action.timeout": "10s"}, "b": {"action.signal": "SIGTERM", "action.timeout": "10s"}},
			[]string{"the new result does not record action.signal, action.timeout for variant b: not compared there"},
			"variant a: action.signal: new SIGTERM, baseline SIGINT"},
		{"fields grouped by the variants lacking them", []string{"a", "b", "c"},
			fields{"a": {"replicas": "1"}},
			fields{"a": {"replicas": "1", "load.kind": "agent"}, "b": {"replicas": "1", "load.kind": "agent"}, "c": {"load.kind": "agent"}},
			[]string{"the new result does not record load.kind: not compared",
				"the new result does not record replicas for variant b: not compared there"}, ""},
		// A variant the baseline does not have is a reason, not a note.
		{"a variant on one side only", []string{"a", "z"},
			fields{"a": {"replicas": "1"}, "z": {"replicas": "1", "load.clients": "5"}},
			fields{"a": {"replicas": "1"}},
			nil, "variants: new [a, z], baseline [a, b, c]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var vs []report.Variant
			for _, l := range tt.newLabels {
				vs = append(vs, variant(l, valid(met(0, 0, 1, 1))))
			}
			newRes := result(vs...)
			oldRes := result(variant("a", valid(met(0, 0, 1, 1))), variant("b", valid(met(0, 0, 1, 1))), variant("c", valid(met(0, 0, 1, 1))))
			n, o := Setup(tt.n), Setup(tt.o)
			got := Unrecorded(newRes, oldRes, n, o)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Unrecorded =\n%q\nwant\n%q", got, tt.want)
			}
			reasons := Comparable(newRes, oldRes, n, o)
			if tt.wantReason != "" && !slices.Contains(reasons, tt.wantReason) {
				t.Errorf("reasons %q lack %q", reasons, tt.wantReason)
			}
			for _, r := range reasons {
				for _, note := range got {
					for _, v := range tt.newLabels {
						for _, f := range setupFields() {
							covers := strings.Contains(note, f) && (strings.HasSuffix(note, ": not compared") || strings.Contains(note, "variant "+v+":"))
							if covers && strings.HasPrefix(r, "variant "+v+": "+f+":") {
								t.Errorf("note %q contradicts reason %q", note, r)
							}
						}
					}
				}
			}
		})
	}
}
