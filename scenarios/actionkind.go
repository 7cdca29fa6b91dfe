package scenarios

import (
	"slices"
	"strings"
)

// actionKindDef is one action kind as the scenarios know it: the
// platforms that can express it, and why, when that is not every
// platform.
type actionKindDef struct {
	kind ActionKind
	// platforms take the kind; nil: every platform (none).
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
	{kind: ActionRollout, platforms: []Platform{PlatformSwarm, PlatformKubernetes}, needs: "it rolls a Swarm service or a Kubernetes Deployment"},
	{kind: ActionTerminate, platforms: []Platform{PlatformDirect, PlatformKubernetes}},
	{kind: ActionNone},
}

// platformDef is one platform as the scenarios know it: what it refuses,
// its settings block and its own checks. Which action kinds it takes is
// said by the kinds' entries above, in this same file, so that adding a
// platform (its entry, and its name in the kinds it takes) or an action
// kind edits one shared file.
type platformDef struct {
	name Platform
	// refusal says why it takes only the action kinds that list it
	// ("Swarm stops its tasks itself").
	refusal string
	// block is its settings block's key ("swarm": a top-level key after
	// platform; "": none) and newBlock a fresh one to decode it into; on
	// another platform it is refused.
	block    string
	newBlock func() PlatformBlock
	// normalize gives a spec on it its defaults, validate checks what it
	// supports (nil: nothing to do).
	normalize func(s *Spec)
	validate  func(s *Spec, fail FailFunc)
}

// platformDefs are the platforms, in the order errors list them; direct
// is the default ("").
var platformDefs = []platformDef{
	{name: PlatformDirect},
	{name: PlatformSwarm, refusal: "Swarm stops its tasks itself", block: "swarm",
		newBlock: func() PlatformBlock { return new(Swarm) }, normalize: normalizeSwarm, validate: validateSwarm},
	{name: PlatformKubernetes, refusal: "the kubelet stops its pods itself", block: "kubernetes",
		newBlock: func() PlatformBlock { return new(Kubernetes) }, normalize: normalizeKubernetes, validate: validateKubernetes},
}

// platformOf returns the definition of platform p ("" is direct).
func platformOf(p Platform) (platformDef, bool) {
	if p == "" {
		p = PlatformDirect
	}
	i := slices.IndexFunc(platformDefs, func(d platformDef) bool { return d.name == p })
	if i < 0 {
		return platformDef{}, false
	}
	return platformDefs[i], true
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
func validateActionKind(s *Spec, fail FailFunc) {
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
	pd, known := platformOf(p)
	if !known || d.takes(p) {
		return // an unknown platform is validatePlatform's to refuse
	}
	if d.needs != "" {
		fail("action.kind", string(k), string(k)+" needs platform "+joinPlatforms(d.platforms)+" ("+d.needs+")")
		return
	}
	var takes []ActionKind
	for _, o := range actionKinds {
		if o.takes(p) {
			takes = append(takes, o.kind)
		}
	}
	fail("action.kind", string(k), "platform "+string(p)+" takes "+orList(takes, " or ")+" ("+pd.refusal+")")
}

// orList joins kinds as "a, b or c" (sep between all but the last two).
func orList(ks []ActionKind, sep string) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = string(k)
	}
	return joinOr(names, sep)
}

func joinPlatforms(ps []Platform) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return strings.Join(names, " or ")
}

// platformNames are the platforms a scenario may name, in their order.
func platformNames() []Platform {
	out := make([]Platform, len(platformDefs))
	for i, d := range platformDefs {
		out[i] = d.name
	}
	return out
}

// takes reports whether platform p can express kind d.
func (d actionKindDef) takes(p Platform) bool {
	return d.platforms == nil || slices.Contains(d.platforms, p)
}

// ActionKindTakes reports whether platform p can express action kind k
// (an unknown kind or platform: false).
func ActionKindTakes(k ActionKind, p Platform) bool {
	d, ok := actionKindOf(k)
	_, known := platformOf(p)
	return ok && known && p != "" && d.takes(p)
}
