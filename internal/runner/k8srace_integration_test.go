package runner_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// TestK8sRaceShape runs k8s-race's two telling points behind Caddy (no
// retries, no health checks): replica A is deregistered from Caddy 1500 ms
// after its SIGTERM. With PRESTOP_MS=0 it closes its listener at once and
// Caddy keeps sending it requests until the deregistration: failures. With
// PRESTOP_MS=2500 it serves until after the deregistration: no 502. Both
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
		failed[v.Label] = m.ByClass["http_502"]
		// Caddy applies the deregistration as a config reload, which
		// closes idle client connections: a request written onto one
		// fails with eof or reset (the rig's own idle-close race, seen in
		// about 1 run in 4 of the PRESTOP_MS=2500 point). Those are not
		// the propagation race, whose failures are Caddy's 502s for a
		// replica that stopped listening; every other class is.
		for key, k := range m.ByClass {
			switch record.Class(key) {
			case record.ClassOK, "http_502", record.ClassEOF, record.ClassReset:
			default:
				t.Errorf("%s: %d requests of class %s, neither ok, the race's 502 nor the reload's eof/reset", v.Label, k, key)
			}
		}
	}
	if n := failed["deregister_after=1500ms,PRESTOP_MS=0"]; n == 0 {
		t.Errorf("pre-stop 0 < delay 1500 ms: no 502; the race is not reproduced")
	}
	if n := failed["deregister_after=1500ms,PRESTOP_MS=2500"]; n != 0 {
		t.Errorf("pre-stop 2500 > delay 1500 ms: %d requests answered 502, want 0", n)
	}
}
