package scenarios

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// stringConsts returns the constants of the non-test files matching glob
// whose value is a string literal, by value, and every constant's
// expression by name.
func stringConsts(t *testing.T, glob string) (literal map[string]string, exprs map[string]ast.Expr) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: %v (%d files)", glob, err, len(files))
	}
	literal, exprs = map[string]string{}, map[string]ast.Expr{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					exprs[n.Name] = vs.Values[i]
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						literal[v] = n.Name
					}
				}
			}
		}
	}
	return literal, exprs
}

// TestKindsSpelledOnce: a kind of the scenario file that a run records
// (an action kind, a load kind, the topology, a probe kind) takes its
// value from record's constant, never a literal of its own, so the wire
// name is spelled once. It fails for a scenarios constant whose literal
// equals one of record's string constants.
func TestKindsSpelledOnce(t *testing.T) {
	recordValues, _ := stringConsts(t, filepath.Join("..", "record", "*.go"))
	_, exprs := stringConsts(t, "*.go")
	for name, e := range exprs {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			continue
		}
		v, _ := strconv.Unquote(lit.Value)
		if rec, dup := recordValues[v]; dup && isKind(name) {
			t.Errorf("scenarios.%s spells %q again: define it as record.%s", name, v, rec)
		}
	}
	for _, name := range []string{"ActionSignal", "ActionStop", "ActionTerminate", "TopologyCaddy"} {
		if _, ok := exprs[name].(*ast.SelectorExpr); !ok {
			t.Errorf("scenarios.%s is not defined from record's constant", name)
		}
	}
}

// isKind reports whether a scenarios constant names a kind the runner
// records (its name's prefix says which).
func isKind(name string) bool {
	for _, p := range []string{"Action", "Load", "Topology", "Probe", "Platform"} {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	return false
}
