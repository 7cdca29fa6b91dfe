package runner

import (
	"slices"
	"testing"
)

// TestRegistryRefusesTakenNames: a name registered twice, or an empty
// one, panics at start; lookups and keys see what was registered.
func TestRegistryRefusesTakenNames(t *testing.T) {
	r := newRegistry[string, int]("thing")
	r.register("b", 2)
	r.register("a", 1)
	if v, ok := r.lookup("a"); !ok || v != 1 {
		t.Errorf("lookup(a) = %d, %v; want 1, true", v, ok)
	}
	if _, ok := r.lookup("c"); ok {
		t.Error("lookup(c) found an entry never registered")
	}
	if got := r.keys(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("keys = %v; want [a b]", got)
	}
	for _, name := range []string{"a", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("register(%q) did not panic", name)
				}
			}()
			r.register(name, 9)
		}()
	}
}
