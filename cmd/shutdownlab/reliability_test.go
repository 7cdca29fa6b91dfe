package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// exitCodeNames are the exit-code constants by the name docs/reliability.md
// gives them.
var exitCodeNames = map[string]int{
	"ok": exitOK, "failed": exitFailed, "invalid": exitInvalid, "usage": exitUsage, "interrupted": exitInterrupted,
}

// docTable is one markdown table of a document: its header and rows.
type docTable struct {
	section string
	header  []string
	rows    [][]string
	lines   []int
}

// parseTables returns the tables of a markdown document, with the section
// (## heading) each is under.
func parseTables(doc string) []docTable {
	var out []docTable
	section := ""
	var cur *docTable
	for i, line := range strings.Split(doc, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			section = h
		}
		if !strings.HasPrefix(line, "|") {
			cur = nil
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		switch {
		case cur == nil:
			out = append(out, docTable{section: section, header: cells})
			cur = &out[len(out)-1]
		case strings.HasPrefix(cells[0], "---"):
		default:
			cur.rows = append(cur.rows, cells)
			cur.lines = append(cur.lines, i+1)
		}
	}
	return out
}

// testFuncs returns the names of every Test function in the module's
// *_test.go files.
func testFuncs(t *testing.T, root string) map[string]bool {
	t.Helper()
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "results" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReliabilityDoc checks docs/reliability.md against the tree: the exit
// code table lists exactly the exit-code constants, every fault row has an
// exit code that is one of them (by number and name), and every test a
// row names exists.
func TestReliabilityDoc(t *testing.T) {
	const path = "../../docs/reliability.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := testFuncs(t, "../..")
	byCode := map[int]string{}
	for name, code := range exitCodeNames {
		byCode[code] = name
	}
	codeCell := regexp.MustCompile("^`?([0-9]+)`? ([a-z]+)$")
	testName := regexp.MustCompile(`Test\w+`)
	faultHeader := "case|what the harness does|exit code|what is left behind|test that proves it"
	rows, sawCodes := 0, false
	for _, tb := range parseTables(string(b)) {
		switch strings.Join(tb.header, "|") {
		case "code|name|meaning":
			sawCodes = true
			got := map[int]string{}
			for _, r := range tb.rows {
				n, err := strconv.Atoi(r[0])
				if err != nil || byCode[n] != r[1] {
					t.Errorf("%s: exit code row %q %q does not match the constants %v", path, r[0], r[1], exitCodeNames)
				}
				got[n] = r[1]
			}
			if len(got) != len(exitCodeNames) {
				t.Errorf("%s: exit code table lists %v, the constants are %v", path, got, exitCodeNames)
			}
		case faultHeader:
			for i, r := range tb.rows {
				where := path + ":" + strconv.Itoa(tb.lines[i])
				if len(r) != 5 {
					t.Errorf("%s: %d columns, want 5", where, len(r))
					continue
				}
				rows++
				m := codeCell.FindStringSubmatch(r[2])
				if m == nil {
					t.Errorf("%s: exit code %q: want \"CODE name\", e.g. \"64 usage\"", where, r[2])
				} else if n, _ := strconv.Atoi(m[1]); byCode[n] != m[2] || exitCodeNames[m[2]] != n {
					t.Errorf("%s: exit code %q does not match the constants %v", where, r[2], exitCodeNames)
				}
				names := testName.FindAllString(r[4], -1)
				if len(names) == 0 {
					t.Errorf("%s: no test named in %q", where, r[4])
				}
				for _, n := range names {
					if !tests[n] {
						t.Errorf("%s: test %s does not exist in any *_test.go", where, n)
					}
				}
			}
		default:
			t.Errorf("%s: table under %q with an unknown header %q", path, tb.section, tb.header)
		}
	}
	if !sawCodes || rows < 20 {
		t.Errorf("%s: exit code table found: %v; fault rows: %d (want the whole table)", path, sawCodes, rows)
	}
	if !strings.Contains(string(b), "\n## Runner faults\n") {
		t.Errorf("%s: the \"Runner faults\" section is gone", path)
	}
}

// The checker must be able to fail: a row naming a test that does not
// exist, or an exit code that is not a constant, is caught.
func TestReliabilityDocCatches(t *testing.T) {
	doc := "## x\n\n| case | what the harness does | exit code | what is left behind | test that proves it |\n|---|---|---|---|---|\n" +
		"| a | b | 3 usage | c | `TestNoSuchTestAnywhere` |\n"
	tb := parseTables(doc)
	if len(tb) != 1 || len(tb[0].rows) != 1 || tb[0].rows[0][2] != "3 usage" || tb[0].rows[0][4] != "`TestNoSuchTestAnywhere`" {
		t.Fatalf("parseTables = %+v", tb)
	}
	if testFuncs(t, "../..")["TestNoSuchTestAnywhere"] {
		t.Errorf("a test that does not exist was found")
	}
	if exitCodeNames["usage"] == 3 {
		t.Errorf("3 passes as the usage code")
	}
}
