package scenarios_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// writeScenario writes text to a scenario file in a new temporary directory
// and returns its path; the caller removes the directory.
func writeScenario(text string) (dir, path string) {
	dir, err := os.MkdirTemp("", "scenario-example")
	if err != nil {
		panic(err)
	}
	path = filepath.Join(dir, "gate.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		panic(err)
	}
	return dir, path
}

// Load reads and validates a scenario file; Expand resolves its variant
// matrix into runnable specs, defaults filled in.
func ExampleLoad() {
	dir, path := writeScenario(`name: my-service
target: {mode: full, init: true, grace_period: 15s}
load: {clients: 10, duration: 4s}
action: {kind: stop, at: 2s}
variants:
  target.env.PRESTOP_MS: ["0", "1000"]
`)
	defer os.RemoveAll(dir)

	sc, err := scenarios.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	vs, err := sc.Expand(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sc.Name(), "runs", sc.Spec.Runs, "x", len(vs), "variants")
	for _, v := range vs {
		s := v.Spec
		fmt.Printf("%s (%s): %s at %s, %d clients for %s, mix %s %s\n", v.Label, v.Slug,
			s.Action.Kind, s.Action.At, s.Load.Clients, s.Load.Duration, s.Load.Mix[0].Method, s.Load.Mix[0].Path)
	}
	// Output:
	// my-service runs 3 x 2 variants
	// PRESTOP_MS=0 (prestop_ms-0): stop at 2s, 10 clients for 4s, mix GET /slow?ms=300
	// PRESTOP_MS=1000 (prestop_ms-1000): stop at 2s, 10 clients for 4s, mix GET /slow?ms=300
}

// An invalid file yields ValidationErrors, one per problem, each with the
// file, the line, the field and the value. Mistakes in the file's shape
// (unknown fields, wrong types, bad durations) are reported first, all
// together; the values are validated once the shape is right.
func ExampleLoad_invalid() {
	dir, path := writeScenario(`name: bad
load:
  duration: 3q
  clients: many
action: {kind: signal, stop_signal: SIGFOO}
observe: {windw: 5s}
`)
	defer os.RemoveAll(dir)

	_, err := scenarios.Load(path)
	if ves, ok := err.(scenarios.ValidationErrors); ok {
		for _, e := range ves {
			fmt.Printf("line %d: %s: %q: %s\n", e.Line, e.Field, e.Value, e.Msg)
		}
	}
	// Output:
	// line 3: load.duration: "3q": invalid duration (want e.g. 6s, 500ms)
	// line 4: load.clients: "many": want a whole number
	// line 6: observe.windw: "": unknown field (want one of: window)
}

// Find returns a catalog scenario by name; a --set on a variant key narrows
// the matrix to that value.
func ExampleFind() {
	sc, err := scenarios.Find("direct-inflight")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, sets := range [][]string{nil, {"target.mode=full", "load.duration=4s"}} {
		vs, err := sc.Expand(sets)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, v := range vs {
			fmt.Printf("%v: %s, mode %s, load %s, %s at %s\n", sets, v.Label, v.Spec.Target.Mode,
				v.Spec.Load.Duration, v.Spec.Action.Signal, v.Spec.Action.At)
		}
	}
	// Output:
	// []: mode=none, mode none, load 6s, SIGTERM at 3s
	// []: mode=close, mode close, load 6s, SIGTERM at 3s
	// []: mode=full, mode full, load 6s, SIGTERM at 3s
	// [target.mode=full load.duration=4s]: mode=full, mode full, load 4s, SIGTERM at 3s
}
