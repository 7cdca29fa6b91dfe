package probe

import (
	"github.com/shutdownlab/shutdownlab/capabilities/captest"
	"slices"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestLoadErrors checks load.probe's errors (moved from package
// scenarios with the block): each with file:line, field and value.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"probe block without kind probe", "name: t\nload:\n  probe: {kind: idle}\n", []string{
			"t.yaml:3: load.probe: only for load.kind probe",
		}},
		{"probe kind missing block", "name: t\nload:\n  kind: probe\n", []string{
			"t.yaml:2: load.probe: required for load.kind probe (kind: idle or inflight)",
		}},
		{"bad probe values", "name: t\nload:\n  kind: probe\n  probe:\n    kind: busy\n    ms: -1\n    max_wait: 0s\n", []string{
			`t.yaml:5: load.probe.kind: "busy": want idle or inflight`,
			`t.yaml:6: load.probe.ms: "-1": must be 0..600000`,
			`t.yaml:7: load.probe.max_wait: "0s": must be > 0 and at most 10m`,
		}},
		{"probe with agent-only fields", "name: t\nload:\n  kind: probe\n  clients: 3\n  probe: {kind: idle}\n  mix:\n    - {path: /slow}\n", []string{
			"t.yaml:4: load.clients: only for load.kind agent (a probe sends one request)",
			"t.yaml:6: load.mix: only for load.kind agent (a probe sends one request)",
		}},
		{"probe action after the watch", "name: t\nload:\n  kind: probe\n  probe: {kind: idle, max_wait: 5s}\naction:\n  at: 6s\n", []string{
			`t.yaml:6: action.at: "6s": must come while the probe watches its socket (before ms + max_wait = 5s)`,
		}},
		{"probe behind a proxy", "name: t\ntopology: caddy\nreplicas: 2\nload:\n  kind: probe\n  probe: {kind: idle}\n", []string{
			`t.yaml:5: load.kind: "probe": a probe talks to replica 0 directly: topology direct, action signal, stop or none`,
		}},
		// PastDuration: action.at past load.duration is the probe's to judge.
		{"action after load.duration", "name: t\nload:\n  kind: probe\n  duration: 2s\n  probe: {kind: idle}\naction:\n  at: 3s\n", nil},
		// TargetPaths: an image must serve /slow.
		{"image without /slow", "name: t\ntarget:\n  image: my/app:1\n  protocol: {paths: [/x]}\nload:\n  kind: probe\n  probe: {kind: idle}\n", []string{
			`t.yaml:7: load.probe.kind: "/slow": image my/app:1 does not declare path "/slow" (declared: ready path /readyz, target.protocol.paths [/x]); if it serves /slow: --set target.protocol.paths=/x,/slow (or target.protocol.paths in a scenario file)`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := captest.ErrLines(t, tc.src); !slices.Equal(got, tc.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestLoadDefaults checks the block's defaults and that it can be set
// like any field (--set load.probe.ms).
func TestLoadDefaults(t *testing.T) {
	sc, err := scenarios.Parse("t.yaml", []byte("name: t\nload:\n  kind: probe\n  probe: {kind: inflight}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p := LoadOf(sc.Spec.Load); p.RequestMs() != 4000 || p.MaxWait != scenarios.Seconds(30) {
		t.Errorf("probe defaults %+v", p)
	}
	vs, err := sc.Expand([]string{"target.entrypoint=shell", "load.probe.ms=100", "target.image=my/app:2", "target.protocol.paths=/slow"})
	if err != nil {
		t.Fatal(err)
	}
	if s := vs[0].Spec; s.Target.Entrypoint != scenarios.EntrypointShell || LoadOf(s.Load).RequestMs() != 100 || s.Target.Image != "my/app:2" {
		t.Errorf("after --set: %+v %+v", s.Target, LoadOf(s.Load))
	}
	if idle := (&Load{Kind: Idle}); idle.RequestMs() != 0 {
		t.Errorf("idle request %d ms, want 0", idle.RequestMs())
	}
}

// TestLoadKindProperties: what the shared checks ask of the kind.
func TestLoadKindProperties(t *testing.T) {
	l := scenarios.LoadSpec{Shape: scenarios.ShapeClosed, Kind: LoadKind, Duration: scenarios.Seconds(6)}
	if got := l.StaggerSpan(); got != 0 {
		t.Errorf("StaggerSpan = %v, want 0 (a probe has no clients to stagger)", got)
	}
	if l.SendsMix() {
		t.Error("a probe sends the mix")
	}
	if !slices.Contains(scenarios.LoadKinds(), LoadKind) || string(LoadKind) != record.LoadKindProbe {
		t.Errorf("load kinds %v: want %q registered, spelled as record's", scenarios.LoadKinds(), record.LoadKindProbe)
	}
	if got := setup(scenarios.LoadSpec{Kind: LoadKind}); got != nil {
		t.Errorf("setup without a block: %v, want nil (the agent's fields)", got)
	}
	ms := 100
	l.SetBlock(&Load{Kind: Idle, Ms: &ms, MaxWait: scenarios.Seconds(15)})
	if got := setup(l)["load.probe"]; got != "idle 100 ms, max wait 15s" {
		t.Errorf("setup load.probe %q", got)
	}
}
