package gate

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name; -update rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update and review the diff):\n%s", path, got)
	}
}

func TestWriteJUnit(t *testing.T) {
	exps := []*Expectation{mustParse("dropped_inflight == 0"), mustParse("exit_after_ms < 3000 @ 2/3"), mustParse(`p99_ms < 1.3 * baseline.p99_ms`)}
	rep, err := Evaluate(threeVariants(), exps, "mode=full")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJUnit(&b, "direct-inflight", rep); err != nil {
		t.Fatal(err)
	}
	golden(t, "junit.xml", b.Bytes())

	// reference.NAME, the current spelling of baseline.NAME, gives the
	// same verdicts, named as written.
	exps[2] = mustParse(`p99_ms < 1.3 * reference.p99_ms`)
	cur, err := Evaluate(threeVariants(), exps, "mode=full")
	if err != nil {
		t.Fatal(err)
	}
	var bc bytes.Buffer
	if err := WriteJUnit(&bc, "direct-inflight", cur); err != nil {
		t.Fatal(err)
	}
	if want := strings.ReplaceAll(b.String(), "baseline.", "reference."); bc.String() != want {
		t.Errorf("reference.p99_ms and baseline.p99_ms judge differently:\n%s", bc.String())
	}

	// Deterministic, and well-formed with the counts CI reads.
	var b2 bytes.Buffer
	if err := WriteJUnit(&b2, "direct-inflight", rep); err != nil || !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Errorf("second write differs (err %v)", err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Suites[0]
	if s.Tests != 9 || s.Failures != 3 || s.Errors != 3 {
		t.Errorf("tests/failures/errors = %d/%d/%d, want 9/3/3", s.Tests, s.Failures, s.Errors)
	}
	for _, c := range s.Cases {
		if c.Classname == "direct-inflight.mode=none" && c.Error == nil {
			t.Errorf("%s %q: no <error> for the invalid run", c.Classname, c.Name)
		}
	}
}
