package reproduce_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce"
)

// TestMain installs the program's capabilities, as its Main does
// (capabilities.Install): the claims' rules read the capabilities'
// metrics.
func TestMain(m *testing.M) {
	capabilities.Install()
	os.Exit(m.Run())
}

// ruleSources are the module's non-test Go files a rule may be written
// in: this package's, and every one that imports it (a capability's
// claims, capabilities/NAME/rules.go).
func ruleSources(t *testing.T) []string {
	t.Helper()
	var files []string
	own := filepath.Join("..", "reproduce")
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			skip := strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" ||
				path == filepath.Join("..", "results")
			if skip && path != ".." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && (filepath.Dir(path) == own || strings.Contains(string(b), `"github.com/shutdownlab/shutdownlab/reproduce"`)) {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// ruleMetrics returns every metric name a rule reads, as the string
// literal passed last to Judge.Vals or Judge.valsOf in the rule sources
// (ruleSources; outside those two methods), with its position. A name
// that is not a literal is reported as an error: the test could not
// check it.
func ruleMetrics(t *testing.T) map[string]string {
	t.Helper()
	files := ruleSources(t)
	fset := token.NewFileSet()
	out := map[string]string{}
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if fn, ok := n.(*ast.FuncDecl); ok && (fn.Name.Name == "Vals" || fn.Name.Name == "valsOf") {
				return false // they pass their caller's name on
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Vals" && sel.Sel.Name != "valsOf") || len(call.Args) != 2 {
				return true
			}
			lit, ok := call.Args[1].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: %s reads a metric name that is not a string literal; this test cannot check it", fset.Position(call.Pos()), sel.Sel.Name)
				return true
			}
			name, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = fset.Position(lit.Pos()).String()
			return true
		})
	}
	return out
}

// TestRuleMetricsInCatalog: every metric a claim lists or a rule reads is
// one the report computes, so a rename in report/catalog.go breaks this
// test instead of turning a claim into "not computed by this build".
func TestRuleMetricsInCatalog(t *testing.T) {
	names := ruleMetrics(t)
	// The rules read ~20 distinct metrics; finding far fewer means the
	// scan above no longer sees them (Vals renamed), not that all is well.
	if len(names) < 15 {
		t.Fatalf("found %d metric names in the rules (%v), want >= 15: does ruleMetrics still find the calls?", len(names), names)
	}
	outside := 0
	for _, where := range names {
		if !strings.HasPrefix(where, filepath.Join("..", "reproduce")+string(filepath.Separator)) {
			outside++
		}
	}
	if outside == 0 {
		t.Fatalf("found no metric name in a rule outside this package (the capabilities' claims): does ruleSources still find them?")
	}
	for _, c := range reproduce.Claims() {
		if len(c.Metrics) == 0 {
			t.Errorf("claim %s lists no metric", c.ID)
		}
		for _, m := range c.Metrics {
			names[m] = "claim " + c.ID + " Metrics"
		}
	}
	for name, where := range names {
		if _, ok := report.Lookup(name); !ok {
			t.Errorf("%s: metric %q is not in the report catalog (report/catalog.go)", where, name)
		}
	}
}
