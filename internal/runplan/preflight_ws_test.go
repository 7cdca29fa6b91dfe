package runplan

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities"
	"github.com/shutdownlab/shutdownlab/capabilities/websockets"
	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// A ws scenario can produce the ws metrics, so `run --expect` accepts
// them; an agent scenario cannot.
func TestCapabilitiesWS(t *testing.T) {
	capabilities.Install() // the needs table is the program's, as after its Main
	for name, want := range map[string]bool{"ws-retire": true, "direct-inflight": false} {
		sc, err := scenarios.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := sc.Expand(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := gate.CapabilitiesOfVariants(vs).Has(websockets.Need); got != want {
			t.Errorf("%s: WS capability %v, want %v", name, got, want)
		}
	}
}
