package scenarios

import (
	"slices"
	"strings"
)

// actionKindDef is one action kind as the scenarios know it: the
// platforms that can express it, and why, when that is not every
// platform.
type actionKindDef struct {
	kind      ActionKind
	platforms []Platform
	// needs says why the kind is tied to its platforms ("it updates a
	// Swarm service"); it words the refusal on another platform. Empty:
	// the other platform's own reason is given instead.
	needs string
}

// actionKinds are the action kinds, in the order errors list them: the
// one place a kind is declared for validation. A new kind is one entry
// here, its constant and its settings block.
var actionKinds = []actionKindDef{
	{kind: ActionSignal, platforms: []Platform{PlatformDirect}},
	{kind: ActionStop, platforms: []Platform{PlatformDirect}},
	{kind: ActionRoll, platforms: []Platform{PlatformDirect}},
	{kind: ActionRollout, platforms: []Platform{PlatformSwarm}, needs: "it updates a Swarm service"},
	{kind: ActionTerminate, platforms: []Platform{PlatformDirect}},
	{kind: ActionNone, platforms: []Platform{PlatformDirect, PlatformSwarm}},
}

// platformRefusals say why a platform takes only the kinds it lists.
var platformRefusals = map[Platform]string{
	PlatformSwarm: "Swarm stops its tasks itself",
}

// actionKindOf returns the definition of kind k.
func actionKindOf(k ActionKind) (actionKindDef, bool) {
	i := slices.IndexFunc(actionKinds, func(d actionKindDef) bool { return d.kind == k })
	if i < 0 {
		return actionKindDef{}, false
	}
	return actionKinds[i], true
}

// ActionKinds lists the action kinds, in their declared order.
func ActionKinds() []ActionKind {
	out := make([]ActionKind, len(actionKinds))
	for i, d := range actionKinds {
		out[i] = d.kind
	}
	return out
}

// validateActionKind checks action.kind: a known kind, on a platform that
// can express it.
func validateActionKind(s *Spec, fail failFunc) {
	k := s.Action.Kind
	d, ok := actionKindOf(k)
	if !ok {
		fail("action.kind", string(k), "want "+orList(ActionKinds(), ", "))
		return
	}
	p := s.Platform
	if p == "" {
		p = PlatformDirect
	}
	if !slices.Contains(platformNames(), p) || slices.Contains(d.platforms, p) {
		return // an unknown platform is validatePlatform's to refuse
	}
	if d.needs != "" {
		fail("action.kind", string(k), string(k)+" needs platform "+joinPlatforms(d.platforms)+" ("+d.needs+")")
		return
	}
	var takes []ActionKind
	for _, o := range actionKinds {
		if slices.Contains(o.platforms, p) {
			takes = append(takes, o.kind)
		}
	}
	fail("action.kind", string(k), "platform "+string(p)+" takes "+orList(takes, " or ")+" ("+platformRefusals[p]+")")
}

// orList joins kinds as "a, b or c" (sep between all but the last two).
func orList(ks []ActionKind, sep string) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = string(k)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], sep) + " or " + names[len(names)-1]
}

func joinPlatforms(ps []Platform) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return strings.Join(names, " or ")
}

// platformNames are the platforms a scenario may name.
func platformNames() []Platform { return []Platform{PlatformDirect, PlatformSwarm} }

// ActionKindTakes reports whether platform p can express action kind k
// (an unknown kind or platform: false).
func ActionKindTakes(k ActionKind, p Platform) bool {
	d, ok := actionKindOf(k)
	return ok && slices.Contains(d.platforms, p)
}
