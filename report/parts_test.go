package report

import (
	"encoding/json"
	"strings"
	"testing"
)

// Two capabilities of the tests' own, with parts of their own types:
// report's tests name none of the program's.
type (
	alphaPart struct {
		AlphaCount int `json:"alpha_count"`
	}
	betaPart struct {
		BetaMs *float64 `json:"beta_ms"`
	}
)

const (
	alphaName Need = "alpha"
	betaName  Need = "beta"
)

// withParts installs alpha, then beta, for t.
func withParts(t *testing.T) {
	t.Helper()
	has := func(*Variant, *Run) bool { return true }
	withCapabilities(t,
		Capability{Name: alphaName, Requirement: "load.kind alpha", Has: has, Part: (*alphaPart)(nil),
			Rows: []MetricDef{PartDef(alphaName, "alpha_count", KindCount, "", CompareNone, "alphas", func(p *alphaPart) Value { return IntValue(p.AlphaCount) })}},
		Capability{Name: betaName, Requirement: "load.kind beta", Has: has, Part: (*betaPart)(nil),
			Rows: []MetricDef{PartDef(betaName, "beta_ms", KindMs, "n/a", CompareNone, "betas", func(p *betaPart) Value { return FloatPtrValue(p.BetaMs) })}})
}

// TestPartsFlatInJSON: a part's keys are written flat, between the core
// metrics and setup_ms, in the order of the capabilities; removing a part
// removes its keys; a copy keeps its parts when the original changes.
func TestPartsFlatInJSON(t *testing.T) {
	withParts(t)
	var m Metrics
	m.SetPart(betaName, &betaPart{})
	m.SetPart(alphaName, &alphaPart{AlphaCount: 7})
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	alpha, beta, setup := strings.Index(s, `"alpha_count":7`), strings.Index(s, `"beta_ms"`), strings.Index(s, `"setup_ms"`)
	if alpha < 0 || beta < 0 || !(strings.Index(s, `"p99_ms"`) < alpha && alpha < beta && beta < setup) {
		t.Errorf("want p99_ms < alpha_count < beta_ms < setup_ms in %s", s)
	}
	copied := m
	m.SetPart(alphaName, (*alphaPart)(nil))
	mine, theirs := PartOf[alphaPart](&m, alphaName), PartOf[alphaPart](&copied, alphaName)
	if mine != nil || theirs == nil || theirs.AlphaCount != 7 {
		t.Errorf("after removing alpha: m's %v, the copy's %v", mine, theirs)
	}
	if b, _ := json.Marshal(m); strings.Contains(string(b), "alpha_count") {
		t.Errorf("removed part still in the JSON: %s", b)
	}
}

// TestSetPartRefusesAWrongType: a part of another type, or of no
// capability (none installed included), panics instead of reading later
// as "no metrics".
func TestSetPartRefusesAWrongType(t *testing.T) {
	refused := func(t *testing.T, name Need, p any) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("SetPart(%q, %T) did not panic", name, p)
			}
		}()
		var m Metrics
		m.SetPart(name, p)
	}
	refused(t, alphaName, &alphaPart{})
	t.Run("installed", func(t *testing.T) {
		withParts(t)
		refused(t, alphaName, &betaPart{})
		refused(t, "carrier-pigeon", &alphaPart{})
	})
}
