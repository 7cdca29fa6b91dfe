package scenarios

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzFile is the file name the fuzzed scenario text is loaded as.
const fuzzFile = "fuzz.yaml"

// FuzzParse feeds arbitrary bytes to the scenario loader (what Load does
// after reading the file). It checks that the loader never panics, that an
// invalid file yields ValidationErrors naming the file, each with a line
// inside the file (a line may be missing only for an empty file or for a
// field that was left at its default), and that a valid file expands into
// named, distinct, runnable variants.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("catalog/*.yaml")
	more, _ := filepath.Glob("testdata/*.yaml")
	for _, name := range append(files, more...) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(""))
	f.Add([]byte("name: x\n---\nname: y\n"))
	f.Add([]byte("- a\n- b\n"))
	f.Add([]byte("name: x\nvariants:\n  target.mode: [none, none]\n"))
	f.Add([]byte("name: x\nload: {duration: 3q}\n"))
	f.Add([]byte("name: x\nload:\n  mix: [{path: [1]}]\n"))
	// Found by this fuzzer: explicit keys ("? key") and empty keys lost
	// their name and line in the error.
	f.Add([]byte("? 0"))
	f.Add([]byte("\"\": 1"))
	f.Add([]byte("name: x\n? load\n: {clients: 0}\n"))
	// Nesting at and past MaxNesting: the YAML parser's cost grows with
	// the square of the depth.
	f.Add([]byte("name: x\nload: " + strings.Repeat("[", MaxNesting-1) + strings.Repeat("]", MaxNesting-1) + "\n"))
	f.Add([]byte("name: x\nload: " + strings.Repeat("{a: ", MaxNesting) + "\n"))
	f.Add([]byte("name: x\nload:\n  " + strings.Repeat("- ", 10000) + "1\n"))
	f.Add([]byte("name: x\nvariants:\n  load.clients: [\"" + strings.Repeat("[", 10000) + "\"]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := parse(fuzzFile, data)
		if err != nil {
			checkFuzzErr(t, data, err)
			return
		}
		if sc.Name() == "" {
			t.Fatal("a valid scenario has no name")
		}
		if !bytes.Equal(sc.Raw(), data) {
			t.Fatal("Raw() differs from the file's text")
		}
		vs, err := sc.Expand(nil)
		if err != nil {
			t.Fatalf("parse accepted the file but Expand(nil) fails: %v", err)
		}
		if len(vs) == 0 || len(vs) > MaxVariants+1 {
			t.Fatalf("%d variants, want 1..%d", len(vs), MaxVariants+1)
		}
		slugs := map[string]bool{}
		for _, v := range vs {
			if v.Label == "" || v.Slug == "" || slugs[v.Slug] {
				t.Fatalf("variant label %q slug %q: empty or duplicate", v.Label, v.Slug)
			}
			slugs[v.Slug] = true
		}
	})
}

// checkFuzzErr requires err to hold ValidationErrors for fuzzFile with
// lines inside data.
func checkFuzzErr(t *testing.T, data []byte, err error) {
	t.Helper()
	var ves ValidationErrors
	if !errors.As(err, &ves) || len(ves) == 0 {
		t.Fatalf("error %T is not ValidationErrors: %v", err, err)
	}
	// Generous: a parser may count \r as a line end, or point past the end.
	maxLine := 2 + bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r"))
	for _, e := range ves {
		if e.File != fuzzFile {
			t.Fatalf("error names file %q, want %q: %v", e.File, fuzzFile, e)
		}
		if !strings.HasPrefix(e.Error(), fuzzFile) {
			t.Fatalf("error text does not start with the file: %q", e.Error())
		}
		if e.Line < 0 || e.Line > maxLine {
			t.Fatalf("error line %d outside 0..%d: %v", e.Line, maxLine, e)
		}
		if e.Line == 0 && e.Field == "" && e.Msg != "empty scenario file" {
			t.Fatalf("error with neither a line nor a field: %v\ninput:\n%s", e, data)
		}
		if e.Msg == "" {
			t.Fatalf("error without a message: %#v", e)
		}
	}
}
