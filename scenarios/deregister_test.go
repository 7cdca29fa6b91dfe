package scenarios

import (
	"slices"
	"testing"
	"time"
)

// TestDeregisterAfterValidation: proxy.deregister_after only for a roll
// behind Caddy, within 0..1m and shorter than the window, with file:line.
func TestDeregisterAfterValidation(t *testing.T) {
	const roll = "name: t\ntopology: caddy\nreplicas: 2\naction:\n  kind: roll\n  at: 1s\nobserve:\n  window: 5s\n"
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"roll behind caddy", roll + "proxy:\n  deregister_after: 500ms\n", nil},
		{"zero is at the signal", roll + "proxy:\n  deregister_after: 0s\n", nil},
		{"not a roll", "name: t\ntopology: caddy\nreplicas: 2\naction:\n  kind: signal\nproxy:\n  deregister_after: 1s\n", []string{
			`t.yaml:7: proxy.deregister_after: "1s": only for action kind roll (timed from its stop signal) or terminate (timed from the pod's deletion)`,
		}},
		{"direct topology", "name: t\nproxy:\n  deregister_after: 1s\n", []string{
			`t.yaml:2: proxy: only for topology caddy`,
			`t.yaml:3: proxy.deregister_after: "1s": only for topology caddy (the runner deregisters the replica from Caddy)`,
		}},
		{"negative", roll + "proxy:\n  deregister_after: -1s\n", []string{
			`t.yaml:10: proxy.deregister_after: "-1s": must be in 0s..1m0s`,
		}},
		{"too long", roll + "proxy:\n  deregister_after: 2m\n", []string{
			`t.yaml:10: proxy.deregister_after: "2m0s": must be in 0s..1m0s`,
		}},
		{"not before the window ends", roll + "proxy:\n  deregister_after: 5s\n", []string{
			`t.yaml:10: proxy.deregister_after: "5s": must be shorter than observe.window (5s)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errLines(t, tt.src)
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

// TestDeregisterAfterVariant: the delay is a variant axis like any other
// duration, and a scenario without it has none (nil, not 0s).
func TestDeregisterAfterVariant(t *testing.T) {
	s, err := parse("t.yaml", []byte("name: t\ntopology: caddy\nreplicas: 2\naction:\n  kind: roll\nobserve:\n  window: 5s\n"+
		"variants:\n  proxy.deregister_after: [0s, 1500ms]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Spec.Proxy.DeregisterAfter != nil {
		t.Errorf("base deregister_after = %v, want nil", *s.Spec.Proxy.DeregisterAfter)
	}
	vs, err := s.Expand(nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Duration
	for _, v := range vs {
		if d := v.Spec.Proxy.DeregisterAfter; d != nil {
			got = append(got, d.D())
		}
	}
	if want := []time.Duration{0, 1500 * time.Millisecond}; !slices.Equal(got, want) {
		t.Errorf("variant delays %v, want %v", got, want)
	}
}
