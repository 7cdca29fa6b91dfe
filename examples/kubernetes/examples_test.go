// Package kubernetes holds example scenarios and manifests for checking
// what a Kubernetes termination does to clients; its test parses every
// scenario, so an example cannot rot.
package kubernetes

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestScenariosParse: every example scenario is valid and expands to its
// variants.
func TestScenariosParse(t *testing.T) {
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example scenarios: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Parse(f, b)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		vs, err := sc.Expand(nil)
		if err != nil || len(vs) == 0 {
			t.Errorf("%s: %d variants, %v", f, len(vs), err)
		}
	}
}
