package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nestedText builds YAML nested n levels deep under "load:" in one of the
// shapes a file can nest in.
func nestedText(shape string, n int) string {
	switch shape {
	case "flow sequences":
		return "name: x\nload: " + strings.Repeat("[", n-1) + "1" + strings.Repeat("]", n-1) + "\n"
	case "flow mappings":
		return "name: x\nload: " + strings.Repeat("{a: ", n-1) + "1" + strings.Repeat("}", n-1) + "\n"
	case "compact block sequences":
		return "name: x\nload:\n  " + strings.Repeat("- ", n-1) + "1\n"
	case "block mappings":
		var b strings.Builder
		b.WriteString("name: x\n")
		for i := range n {
			b.WriteString(strings.Repeat(" ", i) + "a:\n")
		}
		return b.String()
	}
	panic(shape)
}

// A file nested past MaxNesting is refused at the line of the first level
// past it, before the YAML parser sees it; one at the limit is parsed (and
// fails only the schema check).
func TestNestingLimit(t *testing.T) {
	for _, shape := range []string{"flow sequences", "flow mappings", "compact block sequences", "block mappings"} {
		t.Run(shape, func(t *testing.T) {
			if line, _ := tooDeep(nestedText(shape, MaxNesting)); line != 0 {
				t.Errorf("%d levels: refused at line %d", MaxNesting, line)
			}
			text := nestedText(shape, MaxNesting+1)
			wantLine, wantKey := 2, "load"
			if shape == "compact block sequences" {
				wantLine = 3
			} else if shape == "block mappings" {
				wantLine, wantKey = MaxNesting+2, "a"
			}
			_, err := parse("deep.yaml", []byte(text))
			var ves ValidationErrors
			if !errors.As(err, &ves) || len(ves) != 1 || ves[0].Line != wantLine || ves[0].Field != wantKey || ves[0].Msg != deepMsg {
				t.Fatalf("err = %v, want deep.yaml:%d: %s: %s", err, wantLine, wantKey, deepMsg)
			}
		})
	}
}

// Brackets that are not flow collections do not count: in quoted strings,
// comments, block scalars and plain scalars, or closed again.
func TestNestingCountsOnlyCollections(t *testing.T) {
	deep := strings.Repeat("[", MaxNesting+1)
	tests := []string{
		"name: x\ndescription: \"" + deep + "\"\n",
		"name: x\ndescription: '" + deep + "'\n",
		"name: x # " + deep + "\n",
		"name: x\ndescription: |\n  " + deep + "\n  - - - - -\n",
		"name: x\ndescription: a" + deep + "\n",
		"name: x\nvariants:\n" + strings.Repeat("  a: [1, [2], {b: [3]}]\n", 200),
	}
	for _, text := range tests {
		if line, _ := tooDeep(text); line != 0 {
			t.Errorf("refused at line %d:\n%.200s", line, text)
		}
	}
}

// Every catalog scenario is far from the limit.
func TestCatalogNesting(t *testing.T) {
	files, _ := filepath.Glob("catalog/*.yaml")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if line, _ := tooDeep(string(b)); line != 0 {
			t.Errorf("%s: refused at line %d", f, line)
		}
	}
}

// A file of a megabyte of "[" (it ran for minutes and took gigabytes) is
// refused in bounded time, and so is a --set value or variant value
// nested past the limit.
func TestDeepInputIsBounded(t *testing.T) {
	for _, shape := range []string{"flow sequences", "compact block sequences"} {
		text := nestedText(shape, MaxFileBytes/2-20)
		start := time.Now()
		_, err := parse("deep.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), "deep.yaml:") || !strings.Contains(err.Error(), deepMsg) {
			t.Errorf("%s: err = %.300v", shape, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: took %v", shape, d)
		}
	}
	sc, err := parse("ok.yaml", []byte("name: ok\nvariants:\n  load.clients: [\""+strings.Repeat("[", 1000)+"\"]\n"))
	if err == nil {
		_, err = sc.Expand(nil)
	}
	if err == nil || !strings.Contains(err.Error(), "ok.yaml:3: load.clients") || !strings.Contains(err.Error(), deepMsg) {
		t.Errorf("deep variant value: err = %.300v", err)
	}
	sc, err = parse("ok.yaml", []byte("name: ok\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Expand([]string{"load.clients=" + strings.Repeat("[", MaxSetBytes-20)})
	if err == nil || !strings.Contains(err.Error(), "--set: load.clients") || !strings.Contains(err.Error(), deepMsg) || len(err.Error()) > 600 {
		t.Errorf("deep --set value: err = %.300v (%d bytes)", err, len(err.Error()))
	}
}
