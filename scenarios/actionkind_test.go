package scenarios

import (
	"strings"
	"testing"
)

// TestActionKindPlatforms: every action kind on every platform is either
// taken or refused with the reason, from the one table (actionKinds).
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
		{ActionRollout, PlatformDirect, "rollout needs platform swarm (it updates a Swarm service)"},
		{ActionRollout, "", "rollout needs platform swarm (it updates a Swarm service)"},
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
