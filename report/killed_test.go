package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
)

// A result whose harness was killed before any run finished is titled
// with the scenario's name from effective.json, not the directory's, and
// its unknown machine is "unknown", never "0 cores" (report/document
// checks every output against testdata/golden-killed).
func TestKilledResult(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "20261129-181500-fixture-roll")
	if err := fixture.WriteKilled(dir, fixtureDir); err != nil {
		t.Fatal(err)
	}
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scenario != "fixture-roll" {
		t.Errorf("Scenario = %q, want fixture-roll (from effective.json)", res.Scenario)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, res, nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# shutdownlab report: fixture-roll\n", "**Machine:** unknown (no run recorded it)", "missing events.json: the run never finished"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(md.String(), "0 cores") {
		t.Error("report.md renders an unknown machine as 0 cores")
	}

	// Without effective.json (a result of an earlier version), the
	// directory's name is all there is.
	os.Remove(filepath.Join(dir, resultdir.EffectiveFile))
	if res, err := Load(dir); err != nil || res.Scenario != filepath.Base(dir) {
		t.Errorf("without effective.json: Scenario %q, err %v", res.Scenario, err)
	}
}

// A fingerprint missing a part prints "?" for it, the cores included.
func TestFingerprintLineUnknownParts(t *testing.T) {
	got := FingerprintLine(record.Fingerprint{OS: "linux/amd64"})
	if want := "?, ? cores · linux/amd64 · kernel ? · Docker ? (API ?) · ?"; got != want {
		t.Errorf("FingerprintLine = %q, want %q", got, want)
	}
}
