package reproduce_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce"
)

// xSet is a synthetic capability's claims, X1 and X2.
func xSet() reproduce.ClaimSet {
	rule := func(*report.Result) reproduce.Verdict { return reproduce.Verdict{Status: reproduce.Reproduced} }
	return reproduce.ClaimSet{Source: "a synthetic article", Claims: []reproduce.Claim{
		{ID: "X1", Scenario: "direct-inflight", Rule: "x1", RuleFunc: rule},
		{ID: "X2", Scenario: "direct-inflight", Rule: "x2", RuleFunc: rule}}}
}

// ids lists the claims' ids.
func ids(cs []reproduce.Claim) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

// A program that installs no claims has this package's alone, P1–P12:
// Select tells an unknown id those, and judges them.
func TestClaimsUninstalled(t *testing.T) {
	reproduce.UninstallClaims(t)
	var want []string
	for i := 1; i <= 12; i++ {
		want = append(want, "P"+strconv.Itoa(i))
	}
	if got := ids(reproduce.Claims()); !slices.Equal(got, want) {
		t.Errorf("claims %v, want %v", got, want)
	}
	const known = `unknown claim "W1" (known: P1 .. P12)`
	if _, err := reproduce.Select([]string{"W1"}); err == nil || err.Error() != known {
		t.Errorf("Select(W1): error %v, want %s", err, known)
	}
	if cs, err := reproduce.Select(nil); err != nil || len(cs) != 12 {
		t.Errorf("Select() = %d claims, %v", len(cs), err)
	}
	rep := &reproduce.Report{}
	if got := rep.SourceLines(); len(got) != 1 || !strings.Contains(got[0], reproduce.SourceRig) {
		t.Errorf("source lines %q, want the rig's", got)
	}
}

// InstallClaims appends a capability's claims to the table, once: Select
// finds them and names their span, REPRODUCTION.md names their source, the
// same sets again are a no-op, and other sets, or a claim without a rule
// or with a taken id, panic.
func TestInstallClaims(t *testing.T) {
	reproduce.UninstallClaims(t)
	before := ids(reproduce.Claims())
	if _, err := reproduce.Select([]string{"X1"}); err == nil || strings.Contains(err.Error(), "X1 ..") {
		t.Errorf("Select(X1) before install: error %v, want one not naming X1 .. X2", err)
	}
	reproduce.InstallClaims(xSet())
	reproduce.InstallClaims(xSet())
	if got := ids(reproduce.Claims()); !slices.Equal(got, append(before, "X1", "X2")) {
		t.Errorf("claims %v, want %v then X1, X2", got, before)
	}
	if cs, err := reproduce.Select([]string{"x2"}); err != nil || len(cs) != 1 || cs[0].ID != "X2" {
		t.Errorf("Select(x2) = %v, %v", cs, err)
	}
	if _, err := reproduce.Select([]string{"X3"}); err == nil || !strings.HasSuffix(err.Error(), ", X1 .. X2)") {
		t.Errorf("Select(X3): error %v, want one ending with X1 .. X2", err)
	}
	rep := &reproduce.Report{Claims: []reproduce.ClaimResult{{Claim: xSet().Claims[1]}}}
	if got := rep.SourceLines(); !slices.Equal(got, []string{"**Source of X1–X2 (published):** a synthetic article."}) {
		t.Errorf("source lines %q", got)
	}
	mustPanic(t, "other sets", func() { reproduce.InstallClaims() })
	reproduce.UninstallClaims(t)
	noRule := xSet()
	noRule.Claims[1].RuleFunc = nil
	mustPanic(t, "a claim without a rule", func() { reproduce.InstallClaims(noRule) })
	taken := xSet()
	taken.Claims[1].ID = "P2"
	mustPanic(t, "a taken id", func() { reproduce.InstallClaims(taken) })
}

// mustPanic fails the test unless f panics.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}
