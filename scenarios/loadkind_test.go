package scenarios

import (
	"strings"
	"testing"
)

// TestLoadKindTable: a kind with a settings block can tell when a spec
// holds it (and a kind without one has no test), and every other kind's
// block is refused under it, naming the block and its kind.
func TestLoadKindTable(t *testing.T) {
	for k, d := range loadKinds {
		if (d.block == "") != (d.set == nil) {
			t.Errorf("load.kind %s: block %q without its test, or the reverse", k, d.block)
		}
	}
	full := LoadSpec{Probe: &ProbeLoad{}, WS: &WSLoad{}, Hostile: &HostileLoad{}, Jobs: &JobsLoad{}}
	for k := range loadKinds {
		s := &Spec{Load: full}
		s.Load.Kind = k
		var got []string
		validateLoadKind(s, newLocator("test.yaml"), func(path, value, msg string) {
			if strings.HasPrefix(msg, "only for load.kind") {
				got = append(got, path+": "+msg)
			}
		})
		want := 0
		for o, d := range loadKinds {
			if o != k && d.set != nil {
				want++
				if !strings.Contains(strings.Join(got, "\n"), d.block+": only for load.kind "+string(o)) {
					t.Errorf("load.kind %s: %s not refused (got %q)", k, d.block, got)
				}
			}
		}
		if len(got) != want {
			t.Errorf("load.kind %s: %d refusals, want %d: %q", k, len(got), want, got)
		}
	}
}
