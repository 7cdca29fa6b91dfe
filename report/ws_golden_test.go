package report

import (
	"testing"
)

// loadWSFixture loads testdata/wsresult (rewritten first with -update).
func loadWSFixture(t *testing.T) *Result { return loadFixtureDir(t, wsFixtureDir, writeWSFixture) }

// TestWSGolden renders every output of the ws fixture and compares it with
// testdata/golden-ws; go test -update rewrites the goldens.
func TestWSGolden(t *testing.T) { checkGoldens(t, loadWSFixture(t), "golden-ws") }

// TestWSFixtureShape checks the ws fixture says what the goldens claim:
// the storm meets replica-1's capacity under immediate and not under full
// jitter, the last stream is terminated (1006), and the run without a
// client's totals does not count.
func TestWSFixtureShape(t *testing.T) {
	res := loadWSFixture(t)
	if len(res.Variants) != 2 || res.Scenario != "fixture-ws" {
		t.Fatalf("variants/scenario = %d %q", len(res.Variants), res.Scenario)
	}
	imm, jit := &res.Variants[0], &res.Variants[1]
	for _, r := range imm.Runs {
		w := r.Metrics.WSMetrics
		if !r.Valid || w == nil {
			t.Fatalf("immediate run %d: valid %v (%s), ws metrics %v", r.Meta.Run, r.Valid, r.Reason, w != nil)
		}
		if w.WSClose1001 != wsFixClients-1 || w.WSClose1006 != 1 || w.WSTerminated != 1 {
			t.Errorf("immediate run %d: 1001 %d, 1006 %d, terminated %d", r.Meta.Run, w.WSClose1001, w.WSClose1006, w.WSTerminated)
		}
		if *w.WSRefusedCapacity == 0 || *w.WSRefusedDraining != wsFixClients/4 || *w.WSPeakHandshakes <= *w.WSUpgradesPerS/10 {
			t.Errorf("immediate run %d: capacity %d, draining %d, peak %d", r.Meta.Run, *w.WSRefusedCapacity, *w.WSRefusedDraining, *w.WSPeakHandshakes)
		}
	}
	if r := jit.Runs[1]; r.Valid || r.Metrics.AccountingOK {
		t.Errorf("full-jitter run 2 counts (%s): a client's totals are missing", r.Reason)
	}
	if w := jit.Runs[0].Metrics.WSMetrics; w == nil || *w.WSRefusedCapacity != 0 || *w.WSPeakHandshakes > *w.WSUpgradesPerS/10 || w.WSEventsUnknown == 0 {
		t.Errorf("full-jitter run 1: %+v, want no capacity refusals and a gap without replay", w)
	}
}
