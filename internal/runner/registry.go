package runner

import (
	"fmt"
	"maps"
	"slices"
)

// registry is one of the runner's tables keyed by a scenario's constant
// (an action kind, a platform, a load kind), filled by a register call in
// each entry's own file, so that adding an entry edits no shared file.
// Nothing reads a registry in an order: lookups are by key, and keys()
// sorts. A key registered twice panics at program start.
type registry[K ~string, V any] struct {
	what    string // "action kind": in the panic
	entries map[K]V
}

// newRegistry returns an empty registry of what.
func newRegistry[K ~string, V any](what string) *registry[K, V] {
	return &registry[K, V]{what: what, entries: map[K]V{}}
}

// register adds v under k; called from an init function of the entry's own
// file. An empty or taken key panics: two files claiming one name is a
// build mistake, not a run-time condition.
func (r *registry[K, V]) register(k K, v V) {
	if _, taken := r.entries[k]; taken || k == "" {
		panic(fmt.Sprintf("runner: %s %q registered twice or empty", r.what, k))
	}
	r.entries[k] = v
}

// lookup returns the entry of k.
func (r *registry[K, V]) lookup(k K) (V, bool) {
	v, ok := r.entries[k]
	return v, ok
}

// keys returns the registered keys, sorted.
func (r *registry[K, V]) keys() []K { return slices.Sorted(maps.Keys(r.entries)) }
