package reproduce

import (
	"fmt"
	"slices"
	"strings"
)

// The claims beyond P1–P12 are the capabilities' (each in its directory
// under capabilities/), installed once, in one explicit order, by the
// program at start (capabilities.Install, the one list); this package
// names none of them. Until then, and in a program or test that installs
// none, the table is P1–P12 alone.

// ClaimSet is one capability's published claims, as it hands them to
// InstallClaims.
type ClaimSet struct {
	// Claims are its claims, in table order ("W1" .. "W6").
	Claims []Claim
	// Source says where they were published: REPRODUCTION.md shows it
	// ("**Source of W1–W6 (published):** Source.") when one of them is
	// judged.
	Source string
}

// installed are the installed claim sets, in their order; nil until
// InstallClaims.
var installed []ClaimSet

// InstallClaims makes sets, in this order, the claims after P1–P12: the
// table of Claims and Select, the ids an unknown one is told, and the
// sources REPRODUCTION.md names. It panics on a set that is not well
// formed (checkSets) and on a second InstallClaims with other sets (the
// same ones again are a no-op): the list is the program's constant.
func InstallClaims(sets ...ClaimSet) {
	if installed != nil {
		if !slices.Equal(idsOf(installed), idsOf(sets)) {
			panic(fmt.Sprintf("reproduce: claims %v installed, then %v", idsOf(installed), idsOf(sets)))
		}
		return
	}
	if err := checkSets(append(claimSets(), sets...)); err != nil {
		panic("reproduce: " + err.Error())
	}
	installed = append([]ClaimSet{}, sets...)
}

// idsOf lists each set's claim ids, a set per item ("W1 W2 W3").
func idsOf(sets []ClaimSet) []string {
	out := make([]string, len(sets))
	for i, s := range sets {
		for _, c := range s.Claims {
			out[i] = strings.TrimSpace(out[i] + " " + c.ID)
		}
	}
	return out
}

// checkSets says what is wrong with sets, nil when nothing: every set has
// claims and a source, every claim an id unique among them all and a
// rule.
func checkSets(sets []ClaimSet) error {
	seen := map[string]bool{}
	for _, s := range sets {
		if len(s.Claims) == 0 || s.Source == "" {
			return fmt.Errorf("a claim set without claims or source: %v", idsOf([]ClaimSet{s}))
		}
		for _, c := range s.Claims {
			if c.ID == "" || seen[c.ID] || c.RuleFunc == nil {
				return fmt.Errorf("claim %q: no id, a duplicate id, or no RuleFunc", c.ID)
			}
			seen[c.ID] = true
		}
	}
	return nil
}

// claimSets are this package's claims (source: SourceRig), then the
// installed sets, in order.
func claimSets() []ClaimSet {
	return append([]ClaimSet{{Claims: coreClaims(), Source: SourceRig}}, installed...)
}

// span names a set's first and last claim, joined by sep ("W1 .. W6").
func (s ClaimSet) span(sep string) string {
	return s.Claims[0].ID + sep + s.Claims[len(s.Claims)-1].ID
}

// Claims returns the table of the published claims, in order: P1–P12
// (HTTP shutdown, this package's), then each installed set's
// (InstallClaims): W1–W6 (WebSockets), J1–J5 (background jobs), C1–C4
// (cluster supervisors and hostile clients) in the program's list.
func Claims() []Claim {
	var out []Claim
	for _, s := range claimSets() {
		out = append(out, s.Claims...)
	}
	return out
}

// Select returns the claims with the given ids (all when ids is empty), in
// table order; an unknown id is an error naming the known ones.
func Select(ids []string) ([]Claim, error) {
	all := Claims()
	if len(ids) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		id = strings.ToUpper(strings.TrimSpace(id))
		if !slices.ContainsFunc(all, func(c Claim) bool { return c.ID == id }) {
			return nil, fmt.Errorf("unknown claim %q (known: %s)", id, knownSpans())
		}
		want[id] = true
	}
	var out []Claim
	for _, c := range all {
		if want[c.ID] {
			out = append(out, c)
		}
	}
	return out, nil
}

// knownSpans names the claims set by set ("P1 .. P12, W1 .. W6").
func knownSpans() string {
	var spans []string
	for _, s := range claimSets() {
		spans = append(spans, s.span(" .. "))
	}
	return strings.Join(spans, ", ")
}

// sourceLines are the report's lines on where its claims were published:
// the P source rig when one of this package's claims is judged (or no
// set's is), then the source of each set with a judged claim, in order.
func (rep *Report) sourceLines() []string {
	judged := map[string]bool{}
	for _, cr := range rep.Claims {
		judged[cr.Claim.ID] = true
	}
	var out []string
	for _, s := range claimSets()[1:] {
		if slices.ContainsFunc(s.Claims, func(c Claim) bool { return judged[c.ID] }) {
			out = append(out, "**Source of "+s.span("–")+" (published):** "+s.Source+".")
		}
		for _, c := range s.Claims {
			delete(judged, c.ID)
		}
	}
	if len(judged) > 0 || len(out) == 0 {
		out = append([]string{"**Source rig (published):** " + SourceRig + "."}, out...)
	}
	return out
}
