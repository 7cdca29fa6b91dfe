package shutdownlab

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTierNames: every test the Makefile names for a tier (FULLTEST_NAMES
// for make test-full, KUBETESTS for make test-kube) exists, so a renamed
// or misspelt test cannot drop out of its tier unnoticed (make test skips
// FULLTEST_NAMES; make test-full runs only them).
func TestTierNames(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	funcRE := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range funcRE.FindAllSubmatch(b, -1) {
			defined[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	names := tierNames(t, string(mk))
	if len(names) < 10 {
		t.Fatalf("read %d test names from the Makefile's tiers; the Makefile's format changed?", len(names))
	}
	for _, n := range names {
		if !defined[n] {
			t.Errorf("Makefile names %s for a tier, but no _test.go defines it", n)
		}
	}
}

// tierNames are the test names in FULLTEST_NAMES and KUBETESTS.
func tierNames(t *testing.T, mk string) []string {
	var names []string
	full := regexp.MustCompile(`(?s)FULLTEST_NAMES = \\\n(.*?)\n\n`).FindStringSubmatch(mk)
	if full == nil {
		t.Fatal("Makefile: no FULLTEST_NAMES block")
	}
	names = append(names, strings.Fields(strings.ReplaceAll(full[1], `\`, " "))...)
	kube := regexp.MustCompile(`KUBETESTS \?= \^\(([^)]*)\)`).FindStringSubmatch(mk)
	if kube == nil {
		t.Fatal("Makefile: no KUBETESTS")
	}
	return append(names, strings.Split(kube[1], "|")...)
}
