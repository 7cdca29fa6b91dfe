package runner_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/report"
)

// TestK8sRaceShape runs k8s-race's two telling points behind Caddy (no
// retries, no health checks): replica A is deregistered from Caddy 1500 ms
// after its SIGTERM. With PRESTOP_MS=0 it closes its listener at once and
// Caddy keeps sending it requests until the deregistration: failures. With
// PRESTOP_MS=2500 it serves until after the deregistration: none. Both
// runs record the deregistration, sent 1500 ms after the signal and
// acknowledged by Caddy.
func TestK8sRaceShape(t *testing.T) {
	res := runCaddy(t, filepath.Join("testdata", "k8srace", "short.yaml"))
	if len(res.Variants) != 2 {
		t.Fatalf("%d variants, want 2", len(res.Variants))
	}
	failed := map[string]int{}
	for _, v := range res.Variants {
		r := v.Runs[0]
		m, a := r.Metrics, r.Meta.Action
		if a == nil || a.Deregister == nil {
			t.Fatalf("%s: no deregistration recorded", v.Label)
		}
		d := a.Deregister
		sent := time.Duration(d.SentNs - a.SentNs)
		acked := time.Duration(d.AckedNs - d.SentNs)
		t.Logf("%s: requests=%d failed=%d by_class=%v deregister sent +%v acked after %v", v.Label, m.Requests, m.Failed, m.ByClass, sent, acked)
		if sent < 1500*time.Millisecond || sent > 1700*time.Millisecond {
			t.Errorf("%s: deregistration sent %v after the signal, want 1500 ms (+200 ms slack)", v.Label, sent)
		}
		if d.AckedNs <= d.SentNs || acked > 5*time.Second {
			t.Errorf("%s: deregistration acknowledged %v after it was sent", v.Label, acked)
		}
		if m.Requests == 0 {
			t.Errorf("%s: no requests", v.Label)
		}
		failed[v.Label] = m.Failed
	}
	if n := failed["deregister_after=1500ms,PRESTOP_MS=0"]; n == 0 {
		t.Errorf("pre-stop 0 < delay 1500 ms: no failed request; the race is not reproduced")
	}
	if n := failed["deregister_after=1500ms,PRESTOP_MS=2500"]; n != 0 {
		t.Errorf("pre-stop 2500 > delay 1500 ms: %d failed requests, want 0", n)
	}
	rows := report.DeregRows(res)
	if _, pre := report.SmallestZeroPreStop(rows); len(pre) != 1 || pre[0] != "2500" {
		t.Errorf("smallest zero-failure pre-stop %q, want [2500]", pre)
	}
}
