package capabilities_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// confined are the capabilities that live in one directory, each with
// the identifiers of its kind (record's constant, the one spelling of a
// load kind's name; the cluster program's constant and test): outside
// its directory only package record (which every package imports, so it
// holds the line types), the report fixtures of internal/fixture, and
// tests may name them. A capability without a kind (resources: a run
// hook) has none: only its import is confined.
var confined = map[string][]string{
	"probe":      {"LoadKindProbe"},
	"websockets": {"LoadKindWS"},
	"hostile":    {"LoadKindHostile"},
	"queuejobs":  {"LoadKindJobs"},
	"resources":  nil,
	"cluster":    {"ProgramCluster", "IsCluster", "ClusterEntrypoint"},
}

// mayName are the directories, besides the capability's own, whose
// non-test Go files may name its kind.
var mayName = []string{"record/", "internal/fixture/"}

// TestCapabilitiesConfined: no other non-test Go file of the module names
// a confined capability's kind, nor imports its package but the list
// (capabilities.go): adding or moving one touches its directory and the
// list only.
func TestCapabilitiesConfined(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for dir, idents := range confined {
			own := "capabilities/" + dir + "/"
			if strings.HasPrefix(rel, own) || rel == "capabilities/capabilities.go" {
				continue
			}
			if strings.Contains(string(b), `shutdownlab/capabilities/`+dir+`"`) {
				t.Errorf("%s imports capabilities/%s: only the list (capabilities.go) may", rel, dir)
			}
			for _, ident := range idents {
				if strings.Contains(string(b), ident) && !hasAnyPrefix(rel, mayName) {
					t.Errorf("%s names %s: the kind of capabilities/%s belongs in its directory", rel, ident, dir)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
