package scenarios

import (
	"slices"
	"strings"
	"testing"
)

// TestActionKindPlatforms: every action kind on every platform is either
// taken or refused with the reason, from the tables of action kinds and
// platforms (actionkind.go).
func TestActionKindPlatforms(t *testing.T) {
	tests := []struct {
		kind     ActionKind
		platform Platform
		want     string // "" = taken
	}{
		{ActionSignal, PlatformDirect, ""},
		{ActionStop, PlatformDirect, ""},
		{ActionRoll, PlatformDirect, ""},
		{ActionNone, PlatformDirect, ""},
		{ActionNone, PlatformSwarm, ""},
		{ActionRollout, PlatformSwarm, ""},
		{ActionRollout, PlatformDirect, "rollout needs platform swarm or kubernetes (it rolls a Swarm service or a Kubernetes Deployment)"},
		{ActionRollout, "", "rollout needs platform swarm or kubernetes (it rolls a Swarm service or a Kubernetes Deployment)"},
		{ActionSignal, PlatformSwarm, "platform swarm takes rollout or none (Swarm stops its tasks itself)"},
		{ActionStop, PlatformSwarm, "platform swarm takes rollout or none (Swarm stops its tasks itself)"},
		{ActionRoll, PlatformSwarm, "platform swarm takes rollout or none (Swarm stops its tasks itself)"},
		{"restart", PlatformDirect, "want signal, stop, roll, rollout, terminate or none"},
		{ActionTerminate, PlatformDirect, ""},
		{ActionTerminate, PlatformSwarm, "platform swarm takes rollout or none (Swarm stops its tasks itself)"},
		{ActionSignal, "k8s", ""}, // the platform itself is refused elsewhere
	}
	for _, tt := range tests {
		t.Run(string(tt.kind)+"/"+string(tt.platform), func(t *testing.T) {
			var got []string
			s := &Spec{Platform: tt.platform, Action: Action{Kind: tt.kind}}
			validateActionKind(s, func(path, value, msg string) { got = append(got, path+": "+msg) })
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("refused: %q", got)
			case tt.want != "" && (len(got) != 1 || !strings.HasSuffix(got[0], tt.want) || !strings.HasPrefix(got[0], "action.kind: ")):
				t.Errorf("got %q, want one action.kind error ending %q", got, tt.want)
			}
		})
	}
}

// TestPlatformTable: every platform has a name given once and takes
// none; a platform that refuses a kind without needs of its own says
// why; a settings block has its
// test; and the error for an unknown platform lists them all.
func TestPlatformTable(t *testing.T) {
	seen := map[Platform]bool{}
	for _, d := range platformDefs {
		if d.name == "" || seen[d.name] {
			t.Errorf("platform %q: empty or given twice", d.name)
		}
		seen[d.name] = true
		if !ActionKindTakes(ActionNone, d.name) {
			t.Errorf("platform %s: does not take none", d.name)
		}
		// A kind it refuses is refused with the kind's needs or, without
		// them, the platform's refusal.
		refuses := slices.ContainsFunc(actionKinds, func(k actionKindDef) bool { return !k.takes(d.name) && k.needs == "" })
		if refuses && d.refusal == "" {
			t.Errorf("platform %s: refuses kinds without saying why", d.name)
		}
		if (d.block == "") != (d.newBlock == nil) {
			t.Errorf("platform %s: a settings block %q without its constructor, or the reverse", d.name, d.block)
		} else if d.block != "" && d.newBlock().platform() != d.name {
			t.Errorf("platform %s: its block %T says platform %s", d.name, d.newBlock(), d.newBlock().platform())
		}
	}
	// Every block is refused on another platform, naming the block.
	var full Spec
	for _, d := range platformDefs {
		if d.block != "" {
			full.SetBlock(d.newBlock())
		}
	}
	for _, d := range platformDefs {
		s := full
		s.Platform = d.name
		var refused []string
		validatePlatform(&s, func(path, value, msg string) {
			if strings.HasPrefix(msg, "only for platform") {
				refused = append(refused, path)
			}
		})
		for _, o := range platformDefs {
			if want := o.block != "" && o.name != d.name; want != slices.Contains(refused, o.block) {
				t.Errorf("platform %s: block %q refused %v, want %v (%q)", d.name, o.block, !want, want, refused)
			}
		}
	}
	var got []string
	validatePlatform(&Spec{Platform: "k8s"}, func(path, value, msg string) { got = append(got, path+"="+value+": "+msg) })
	if want := "platform=k8s: want direct or swarm or kubernetes"; len(got) != 1 || got[0] != want {
		t.Errorf("unknown platform: %q, want [%q]", got, want)
	}
}
