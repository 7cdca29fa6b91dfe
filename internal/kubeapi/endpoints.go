package kubeapi

import (
	"cmp"
	"slices"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/shutdownlab/shutdownlab/record"
)

// epKey identifies an endpoint of a Service across its EndpointSlices:
// its first address and its targetRef's name (a pod's; "" when none).
type epKey struct{ IP, Pod string }

// epConds are an endpoint's conditions (nil: not stated).
type epConds struct{ Ready, Serving, Terminating *bool }

func (a epConds) equal(b epConds) bool {
	return eqBool(a.Ready, b.Ready) && eqBool(a.Serving, b.Serving) && eqBool(a.Terminating, b.Terminating)
}

func eqBool(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// endpointsOf reads a slice's endpoints (those with an address).
func endpointsOf(s *discoveryv1.EndpointSlice) map[epKey]epConds {
	out := map[epKey]epConds{}
	for _, ep := range s.Endpoints {
		if len(ep.Addresses) == 0 {
			continue
		}
		k := epKey{IP: ep.Addresses[0]}
		if ep.TargetRef != nil {
			k.Pod = ep.TargetRef.Name
		}
		out[k] = epConds{Ready: ep.Conditions.Ready, Serving: ep.Conditions.Serving, Terminating: ep.Conditions.Terminating}
	}
	return out
}

// endpointTracker turns EndpointSlice states into endpoint changes: one
// entry when an endpoint appears or its conditions differ from those last
// reported, one Removed entry when it is in no slice any more. An
// endpoint moving from one slice to another with the same conditions is
// no change.
type endpointTracker struct {
	slices map[string]map[epKey]epConds // by slice name
	last   map[epKey]epConds            // last reported, of endpoints present
}

func newEndpointTracker() *endpointTracker {
	return &endpointTracker{slices: map[string]map[epKey]epConds{}, last: map[epKey]epConds{}}
}

// apply sets slice's endpoints (nil: the slice is gone) and returns the
// changes, observed at nowNs: changed ones first, then removed ones, each
// by address and pod. Pure but for t.
func (t *endpointTracker) apply(slice string, eps map[epKey]epConds, nowNs int64) []record.KubeEndpoint {
	old := t.slices[slice]
	if eps == nil {
		delete(t.slices, slice)
	} else {
		t.slices[slice] = eps
	}
	var out []record.KubeEndpoint
	for _, k := range sortedKeys(eps) {
		c := eps[k]
		if prev, ok := t.last[k]; ok && prev.equal(c) {
			continue
		}
		t.last[k] = c
		out = append(out, record.KubeEndpoint{ObservedNs: nowNs, Pod: k.Pod, IP: k.IP,
			Ready: copyBool(c.Ready), Serving: copyBool(c.Serving), Terminating: copyBool(c.Terminating)})
	}
	for _, k := range sortedKeys(old) {
		if _, still := eps[k]; still || t.inAnySlice(k) {
			continue
		}
		delete(t.last, k)
		out = append(out, record.KubeEndpoint{ObservedNs: nowNs, Pod: k.Pod, IP: k.IP, Removed: true})
	}
	return out
}

// slicesNot returns the slices known other than those in keep: after a
// re-list, the ones that went meanwhile.
func (t *endpointTracker) slicesNot(keep map[string]bool) []string {
	var out []string
	for name := range t.slices {
		if !keep[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func (t *endpointTracker) inAnySlice(k epKey) bool {
	for _, eps := range t.slices {
		if _, ok := eps[k]; ok {
			return true
		}
	}
	return false
}

func sortedKeys(m map[epKey]epConds) []epKey {
	ks := make([]epKey, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b epKey) int { return cmp.Or(cmp.Compare(a.IP, b.IP), cmp.Compare(a.Pod, b.Pod)) })
	return ks
}

// copyBool gives the record its own bool, so nothing it holds is shared
// with the API's objects.
func copyBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}
