package report

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// withCapabilities makes caps the installed capabilities, and their
// catalog report's, until t ends; the tests of the core install none
// otherwise (Install is once per program, this is per test, and no test
// here runs in parallel).
func withCapabilities(t *testing.T, caps ...Capability) {
	t.Helper()
	was, wasDefs := registered, catalogDefs
	catalogDefs, registered = catalogOf(coreDefs, caps), caps
	t.Cleanup(func() { registered, catalogDefs = was, wasDefs })
}

// TestCoreWithoutCapabilities: with none installed, the catalog is the
// core's rows, in their order, and a run's metrics have no part.
func TestCoreWithoutCapabilities(t *testing.T) {
	if len(Capabilities()) != 0 {
		t.Fatalf("installed %v: report's tests install none", namesOf(Capabilities()))
	}
	if got := Defs(); len(got) != len(coreDefs) || got[0].Name != coreDefs[0].Name || got[len(got)-1].Name != coreDefs[len(coreDefs)-1].Name {
		t.Errorf("catalog of %d rows, want the %d core rows", len(got), len(coreDefs))
	}
	m := Compute(record.Meta{Valid: true}, []record.Request{{Class: record.ClassOK}})
	if len(m.parts) != 0 || m.Requests != 1 {
		t.Errorf("metrics without capabilities: %d parts, %d requests", len(m.parts), m.Requests)
	}
}

// TestCheckCapabilities: a capability that is not well formed fails at
// start, naming itself.
func TestCheckCapabilities(t *testing.T) {
	has := func(*Variant, *Run) bool { return true }
	row := func(name string, n Need) MetricDef { return MetricDef{Name: name, Optional: n} }
	type xMetrics struct{}
	part := (*xMetrics)(nil)
	ok := Capability{Name: "x", Requirement: "load.kind x", Has: has, Rows: []MetricDef{row("x_count", "x")}, Part: part}
	for _, tt := range []struct {
		name string
		caps []Capability
		want string
	}{
		{"well formed", []Capability{ok}, ""},
		{"a name twice", []Capability{ok, ok}, `capability "x": the name is empty or taken`},
		{"a core need's name", []Capability{{Name: NeedsWrites, Requirement: "r", Has: has}}, `"writes": the name is empty or taken`},
		{"no name", []Capability{{Requirement: "r", Has: has}}, `capability "": the name is empty or taken`},
		{"no Has", []Capability{{Name: "y", Requirement: "r"}}, `"y": no Has`},
		{"a row of another", []Capability{{Name: "y", Requirement: "r", Has: has, Part: part, Rows: []MetricDef{row("y_count", "x")}}}, `row "y_count"`},
		{"a row name taken", []Capability{{Name: "y", Requirement: "r", Has: has, Part: part, Rows: []MetricDef{row("failed", "y")}}}, `row "failed"`},
		{"after no core row", []Capability{{Name: "y", Requirement: "r", Has: has, Part: part, After: "ws_clients"}}, `After "ws_clients" is no core row`},
		{"no Part", []Capability{{Name: "y", Requirement: "r", Has: has}}, `"y": Part <nil> is no pointer`},
		{"a Part of no struct", []Capability{{Name: "y", Requirement: "r", Has: has, Part: new(int)}}, `"y": Part *int is no pointer`},
		{"a headline extra of another", []Capability{{Name: "y", Requirement: "r", Has: has, Part: part, Rows: []MetricDef{row("y_count", "y")}, HeadlineExtra: []string{"failed"}}}, `HeadlineExtra "failed" is none of its rows`},
	} {
		err := checkCapabilities(coreDefs, tt.caps)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestCatalogPlacesCapabilities: each capability's rows follow its After
// row, in the order of capabilities.
func TestCatalogPlacesCapabilities(t *testing.T) {
	core := []MetricDef{{Name: "a"}, {Name: "b"}}
	has := func(*Variant, *Run) bool { return true }
	part := new(struct{})
	caps := []Capability{
		{Name: "p", Requirement: "r", Has: has, Part: part, After: "a", Rows: []MetricDef{{Name: "p1", Optional: "p"}}},
		{Name: "q", Requirement: "r", Has: has, Part: part, Rows: []MetricDef{{Name: "q1", Optional: "q"}}},
		{Name: "s", Requirement: "r", Has: has, Part: part, After: "a", Rows: []MetricDef{{Name: "s1", Optional: "s"}}},
	}
	var got []string
	for _, d := range catalogOf(core, caps) {
		got = append(got, d.Name)
	}
	if want := "a p1 s1 b q1"; strings.Join(got, " ") != want {
		t.Errorf("catalog %q, want %q", got, want)
	}
}
