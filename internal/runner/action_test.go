package runner

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestActionsCoverDirectKinds: every action kind the scenarios accept on
// platform direct, but none, has the runner's entry, and nothing else has
// one; a kind that stops a replica itself (no at of its own) delivers.
func TestActionsCoverDirectKinds(t *testing.T) {
	for _, k := range scenarios.ActionKinds() {
		direct := scenarios.ActionKindTakes(k, scenarios.PlatformDirect)
		d, ok := actions.lookup(k)
		switch {
		case k == scenarios.ActionNone:
			if ok {
				t.Errorf("%s: has an entry; it does nothing", k)
			}
		case direct && !ok:
			t.Errorf("%s: accepted on platform direct, no entry in actions", k)
		case !direct && ok:
			t.Errorf("%s: not accepted on platform direct, yet an entry in actions", k)
		case ok && d.at == nil && d.deliver == nil:
			t.Errorf("%s: neither at nor deliver", k)
		}
	}
	for _, k := range actions.keys() {
		if !scenarios.ActionKindTakes(k, scenarios.PlatformDirect) {
			t.Errorf("actions has %q, which no scenario on platform direct can name", k)
		}
	}
}

// TestRollViaDelivers: a roll stops replica A through action.roll.via, so
// every kind a roll may name delivers a stop.
func TestRollViaDelivers(t *testing.T) {
	for _, via := range []scenarios.ActionKind{scenarios.ActionSignal, scenarios.ActionStop} {
		if d, _ := actions.lookup(via); d.deliver == nil {
			t.Errorf("roll.via %s: no deliver in actions", via)
		}
	}
}
