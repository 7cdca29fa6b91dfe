package websockets

import (
	"github.com/shutdownlab/shutdownlab/capabilities/captest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/loadgen/ws"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestLoadErrors checks load.ws's errors: each with file:line, field and
// value.
func TestLoadErrors(t *testing.T) {
	const head = "name: t\nload:\n  kind: ws\n"
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"defaults", head + "  ws: {}\n", nil},
		{"ws block without kind ws", "name: t\nload:\n  ws: {clients: 3}\n", []string{"t.yaml:3: load.ws: only for load.kind ws"}},
		{"ws kind missing block", head, []string{"t.yaml:2: load.ws: required for load.kind ws (clients, policy, ...)"}},
		{"bad values", head + "  ws:\n    clients: 0\n    path: events\n    raw_peers: 1\n    dedupe_size: -1\n    max_attempts: 0\n    resume_overlap: 2\n", []string{
			`t.yaml:5: load.ws.clients: "0": must be 1..100000`,
			`t.yaml:6: load.ws.path: "events": want a path starting with / and no query`,
			`t.yaml:7: load.ws.raw_peers: "1": must be 0..load.ws.clients`,
			`t.yaml:8: load.ws.dedupe_size: "-1": must be 0..1048576`,
			`t.yaml:9: load.ws.max_attempts: "0": must be 1..100000`,
			`t.yaml:10: load.ws.resume_overlap: "2": only with resume: true`,
		}},
		{"timeouts and ramp", head + "  duration: 4s\n  ws:\n    ramp: 4s\n    handshake_timeout: 0s\n    close_timeout: 2m\n    resume: true\n    resume_overlap: -1\n", []string{
			`t.yaml:6: load.ws.ramp: "4s": must be in [0, load.duration)`,
			`t.yaml:7: load.ws.handshake_timeout: "0s": must be > 0 and at most 1m`,
			`t.yaml:8: load.ws.close_timeout: "2m0s": must be > 0 and at most 1m`,
			`t.yaml:10: load.ws.resume_overlap: "-1": must be >= 0`,
		}},
		{"policy kind", head + "  ws:\n    policy: {kind: linear}\n", []string{
			`t.yaml:5: load.ws.policy.kind: "linear": want immediate, exponential, full-jitter`,
		}},
		{"policy bounds", head + "  ws:\n    policy: {kind: exponential, base: 0s, cap: 2h, stable_after: -1s}\n", []string{
			`t.yaml:5: load.ws.policy.base: "0s": must be > 0`,
			`t.yaml:5: load.ws.policy.cap: "2h0m0s": must be >= base and at most 1h`,
			`t.yaml:5: load.ws.policy.stable_after: "-1s": must be >= 0`,
		}},
		{"immediate ignores the delays", head + "  ws:\n    policy: {kind: immediate, base: 0s}\n", nil},
		{"agent-only fields", head + "  clients: 3\n  ws: {}\n", []string{
			"t.yaml:4: load.clients: only for load.kind agent (a ws load holds load.ws.clients connections)",
		}},
		// TargetPaths: an image must serve load.ws.path.
		{"image without the stream", "name: t\ntarget:\n  image: my/app:1\n  protocol: {paths: [/x]}\n" + strings.TrimPrefix(head, "name: t\n") + "  ws: {path: /stream}\n", []string{
			`t.yaml:7: load.ws.path: "/stream": image my/app:1 does not declare path "/stream" (declared: ready path /readyz, target.protocol.paths [/x]); if it serves /stream: --set target.protocol.paths=/x,/stream (or target.protocol.paths in a scenario file)`,
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

// TestLoadDefaults checks the block's defaults, that it can be set like
// any field (--set load.ws.clients), and the ramp's span.
func TestLoadDefaults(t *testing.T) {
	sc, err := scenarios.Parse("t.yaml", []byte("name: t\nload:\n  kind: ws\n  duration: 2s\n  ws: {clients: 7}\naction: {at: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := LoadOf(sc.Spec.Load)
	want := DefaultLoad()
	want.Clients = 7
	if w == nil || w.Path != want.Path || w.Policy != want.Policy || w.Clients != 7 || w.DedupeSize != 1024 || w.HandshakeTimeout != want.HandshakeTimeout {
		t.Errorf("defaults %+v, want %+v", w, want)
	}
	if got := w.RampSpan(2 * time.Second); got != 500*time.Millisecond {
		t.Errorf("ramp over 2s %v, want a quarter of it", got)
	}
	vs, err := sc.Expand([]string{"load.ws.clients=9", "load.ws.ramp=300ms"})
	if err != nil {
		t.Fatal(err)
	}
	if w := LoadOf(vs[0].Spec.Load); w.Clients != 9 || w.RampSpan(2*time.Second) != 300*time.Millisecond {
		t.Errorf("after --set: %+v", w)
	}
	if got := (&Load{}).RampSpan(time.Minute); got != time.Second {
		t.Errorf("ramp over 1m %v, want 1s", got)
	}
}

// TestLoadKindProperties: what the shared checks ask of the kind, and the
// spellings it shares with record, loadgen/ws and the built-in targets.
func TestLoadKindProperties(t *testing.T) {
	l := scenarios.LoadSpec{Shape: scenarios.ShapeClosed, Kind: LoadKind, Duration: scenarios.Seconds(6)}
	if got := l.StaggerSpan(); got != 0 {
		t.Errorf("StaggerSpan = %v, want 0 (a ws load has no closed-loop clients)", got)
	}
	if l.SendsMix() {
		t.Error("a ws load sends the mix")
	}
	if !slices.Contains(scenarios.LoadKinds(), LoadKind) || string(LoadKind) != record.LoadKindWS {
		t.Errorf("load kinds %v: want %q registered, spelled as record's", scenarios.LoadKinds(), record.LoadKindWS)
	}
	if got := targetPaths(&scenarios.Spec{}); len(got) != 0 {
		t.Errorf("paths without a block: %v", got)
	}
	if !scenarios.DefaultProtocol().Serves(DefaultPath) {
		t.Errorf("the built-in targets do not declare %s", DefaultPath)
	}
}

// TestPolicyKindsAreDriverKinds: load.ws.policy.kind's values are the
// agent's (loadgen/ws.PolicyKind), which reads them from its flags.
func TestPolicyKindsAreDriverKinds(t *testing.T) {
	want := []string{string(ws.Immediate), string(ws.Exponential), string(ws.FullJitter)}
	if !slices.Equal(PolicyKinds, want) {
		t.Errorf("policy kinds %v, the agent's %v", PolicyKinds, want)
	}
}
