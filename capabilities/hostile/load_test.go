package hostile

import (
	"github.com/shutdownlab/shutdownlab/capabilities/captest"
	"slices"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

func TestKindsAreRecordKinds(t *testing.T) {
	want := []string{record.HostileSlowHeaders, record.HostileSlowBody, record.HostileAbort}
	if !slices.Equal(Kinds, want) || string(LoadKind) != record.LoadKindHostile {
		t.Errorf("hostile %v / %q, record %v / %q", Kinds, LoadKind, want, record.LoadKindHostile)
	}
	if !slices.Contains(scenarios.LoadKinds(), LoadKind) {
		t.Errorf("load kinds %v: want %q registered", scenarios.LoadKinds(), LoadKind)
	}
}

// TestValidation checks load.hostile's errors (moved from package
// scenarios with the block): each with file:line, field and value.
func TestValidation(t *testing.T) {
	head := "name: t\nload:\n  kind: hostile\n"
	tests := []struct {
		name string
		src  string
		want []string // every error, in order; nil: valid
	}{
		{"slow headers, defaults", head + "  hostile: {kind: slow_headers}\n", nil},
		{"abort with its settings", head + "  hostile: {kind: abort, body_bytes: 100, abort_after: 10, hold: 200ms, reset: true, clients: 5, attempts_per_s: 20}\n", nil},
		{"no block", head, []string{"t.yaml:2: load.hostile: required for load.kind hostile (kind: slow_headers, slow_body, abort)"}},
		{"no kind", head + "  hostile: {clients: 2}\n", []string{"t.yaml:4: load.hostile.kind: required: slow_headers, slow_body, abort"}},
		{"bad kind", head + "  hostile: {kind: slowloris}\n", []string{`t.yaml:4: load.hostile.kind: "slowloris": want slow_headers, slow_body, abort`}},
		{"clients", head + "  hostile:\n    kind: slow_body\n    clients: 0\n", []string{`t.yaml:6: load.hostile.clients: "0": must be 1..10000`}},
		{"negative rate", head + "  hostile:\n    kind: slow_body\n    bytes_per_s: -1\n", []string{`t.yaml:6: load.hostile.bytes_per_s: "-1": must be > 0 bytes per second (default 1)`}},
		{"slow body without a body", head + "  hostile:\n    kind: slow_body\n    body_bytes: 0\n", []string{`t.yaml:6: load.hostile.body_bytes: "0": slow_body needs a body`}},
		{"abort after the whole body", head + "  hostile:\n    kind: abort\n    body_bytes: 10\n    abort_after: 10\n", []string{`t.yaml:7: load.hostile.abort_after: "10": must be 0..9 (less than body_bytes 10)`}},
		{"rate for an abort", head + "  hostile:\n    kind: abort\n    bytes_per_s: 5\n", []string{`t.yaml:6: load.hostile.bytes_per_s: "5": only for the slow kinds (an abort sends at once)`}},
		{"hold for a slow kind", head + "  hostile:\n    kind: slow_headers\n    hold: 1s\n", []string{"t.yaml:6: load.hostile.hold: only for kind abort"}},
		{"bad path", head + "  hostile:\n    kind: slow_headers\n    path: slow\n", []string{`t.yaml:6: load.hostile.path: "slow": want a request target starting with / and no white space`}},
		{"any path of the built-in target", head + "  hostile:\n    kind: slow_headers\n    path: /nope?x=1\n", nil},
		{"agent fields", head + "  clients: 3\n  hostile: {kind: abort}\n", []string{"t.yaml:4: load.clients: only for load.kind agent (a hostile load is configured in load.hostile)"}},
		{"block for another kind", "name: t\nload:\n  hostile: {kind: abort}\n", []string{"t.yaml:3: load.hostile: only for load.kind hostile"}},
		// TargetPaths: an image must serve load.hostile.path.
		{"image without the path", "name: t\ntarget:\n  image: my/app:1\n  protocol: {paths: [/x]}\n" + head[8:] + "  hostile: {kind: slow_headers, path: /y}\n", []string{
			`t.yaml:7: load.hostile.path: "/y": image my/app:1 does not declare path "/y" (declared: ready path /readyz, target.protocol.paths [/x]); if it serves /y: --set target.protocol.paths=/x,/y (or target.protocol.paths in a scenario file)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := captest.ErrLines(t, tt.src)
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	sc, err := scenarios.Parse("t.yaml", []byte("name: t\nload:\n  kind: hostile\n  hostile: {kind: abort}\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := LoadOf(sc.Spec.Load)
	if h.Clients != 1 || h.Method != "POST" || h.Path != "/slow?ms=0" || h.MaxAttempts != 1000 ||
		h.Body() != 1000 || h.AbortBytes() != 500 || h.Rate() != 1 {
		t.Errorf("defaults %+v (body %d, abort after %d, rate %v)", h, h.Body(), h.AbortBytes(), h.Rate())
	}
	if b := (&Load{Kind: SlowHeaders}).Body(); b != 0 {
		t.Errorf("slow_headers body %d, want 0", b)
	}
	if p := targetPaths(&scenarios.Spec{}); p == nil || len(p) != 0 {
		t.Errorf("paths without a block %v, want none (not the agent's)", p)
	}
}
