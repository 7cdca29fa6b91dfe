package kubeapi

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/shutdownlab/shutdownlab/record"
)

// ep is an endpoint of pod at ip with conditions "rst" (ready, serving,
// terminating: t/f/- for true/false/unstated).
func ep(ip, pod, conds string) (epKey, epConds) {
	b := func(c byte) *bool {
		switch c {
		case 't':
			return ptr(true)
		case 'f':
			return ptr(false)
		}
		return nil
	}
	return epKey{IP: ip, Pod: pod}, epConds{Ready: b(conds[0]), Serving: b(conds[1]), Terminating: b(conds[2])}
}

func eps(list ...[3]string) map[epKey]epConds {
	m := map[epKey]epConds{}
	for _, e := range list {
		k, c := ep(e[0], e[1], e[2])
		m[k] = c
	}
	return m
}

// describe writes entries as "pod@ip rst" or "pod@ip removed".
func describe(es []record.KubeEndpoint) string {
	s := func(b *bool) string {
		switch {
		case b == nil:
			return "-"
		case *b:
			return "t"
		}
		return "f"
	}
	var out []string
	for _, e := range es {
		if e.Removed {
			out = append(out, fmt.Sprintf("%s@%s removed", e.Pod, e.IP))
			continue
		}
		out = append(out, fmt.Sprintf("%s@%s %s%s%s", e.Pod, e.IP, s(e.Ready), s(e.Serving), s(e.Terminating)))
	}
	return strings.Join(out, ", ")
}

func TestEndpointTracker(t *testing.T) {
	type step struct {
		slice string
		eps   map[epKey]epConds // nil: slice deleted
		want  string
	}
	a := [3]string{"10.0.0.1", "a", "ttf"}
	b := [3]string{"10.0.0.2", "b", "ttf"}
	aTerm := [3]string{"10.0.0.1", "a", "ftt"}
	aDone := [3]string{"10.0.0.1", "a", "fft"}
	tests := []struct {
		name  string
		steps []step
	}{
		{"a pod's termination", []step{
			// Both endpoints appear.
			{"s1", eps(a, b), "a@10.0.0.1 ttf, b@10.0.0.2 ttf"},
			// The same state again (a resync, another field changed): nothing.
			{"s1", eps(a, b), ""},
			// a is deleted: not ready, still serving, terminating.
			{"s1", eps(aTerm, b), "a@10.0.0.1 ftt"},
			// Its app stops serving.
			{"s1", eps(aDone, b), "a@10.0.0.1 fft"},
			// It leaves the slice, and so every slice.
			{"s1", eps(b), "a@10.0.0.1 removed"},
		}},
		{"moving between slices", []step{
			{"s1", eps(a), "a@10.0.0.1 ttf"},
			// Added to another slice with the same conditions: no change.
			{"s2", eps(a, b), "b@10.0.0.2 ttf"},
			// Leaving the first while still in the second: not removed.
			{"s1", eps(), ""},
			// The second slice deleted: both leave every slice.
			{"s2", nil, "a@10.0.0.1 removed, b@10.0.0.2 removed"},
		}},
		{"address reused by a new pod", []step{
			{"s1", eps(a), "a@10.0.0.1 ttf"},
			// The same IP under another pod is another endpoint.
			{"s1", eps([3]string{"10.0.0.1", "c", "ttf"}), "c@10.0.0.1 ttf, a@10.0.0.1 removed"},
		}},
		{"unstated conditions", []step{
			{"s1", eps([3]string{"10.0.0.1", "a", "---"}), "a@10.0.0.1 ---"},
			// Stating a condition is a change, even to its default.
			{"s1", eps([3]string{"10.0.0.1", "a", "t--"}), "a@10.0.0.1 t--"},
		}},
		{"removed then back", []step{
			{"s1", eps(a), "a@10.0.0.1 ttf"},
			{"s1", eps(), "a@10.0.0.1 removed"},
			{"s1", eps(a), "a@10.0.0.1 ttf"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newEndpointTracker()
			for i, s := range tt.steps {
				got := tr.apply(s.slice, s.eps, int64(i+1))
				if d := describe(got); d != s.want {
					t.Errorf("step %d: got %q, want %q", i, d, s.want)
				}
				for _, e := range got {
					if e.ObservedNs != int64(i+1) {
						t.Errorf("step %d: observed %d", i, e.ObservedNs)
					}
				}
			}
		})
	}
}

func TestEndpointsOf(t *testing.T) {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "s1"},
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.0.0.1", "fd00::1"}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "a"},
				Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}},
			{Addresses: nil, TargetRef: &corev1.ObjectReference{Name: "no-address"}},
			{Addresses: []string{"10.0.0.9"}},
		},
	}
	got := endpointsOf(s)
	k1, c1 := ep("10.0.0.1", "a", "t--")
	k2, c2 := ep("10.0.0.9", "", "---")
	if len(got) != 2 || !got[k1].equal(c1) || !got[k2].equal(c2) {
		t.Errorf("got %v", got)
	}
}
