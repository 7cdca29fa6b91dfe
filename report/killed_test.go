package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
)

// writeKilledResult writes into dir what a harness SIGKILLed during the
// first run of fixture-roll leaves: the files the runner writes before the
// first run (scenario.yaml, variants.json, effective.json) and a run
// directory with the start of its records and logs, cut mid-line; no
// events.json, and none of report's files.
func writeKilledResult(t *testing.T, dir string) {
	t.Helper()
	src := filepath.Join(fixtureDir, "mode-close", "run-001", resultdir.RecordsFile)
	recs, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(recs, []byte("\n"))
	cut := append(bytes.Join(lines[:4], nil), lines[4][:40]...)
	rd := resultdir.RunDir(dir, "mode-close", 1)
	spec := json.RawMessage(`{"name":"fixture-roll","runs":3,"load":{"clients":5}}`)
	files := map[string][]byte{
		filepath.Join(dir, resultdir.ScenarioFile):       []byte("name: fixture-roll\nruns: 3\nvariants:\n  target.mode: [close, full]\n"),
		filepath.Join(rd, resultdir.RecordsFile):         cut,
		filepath.Join(rd, resultdir.AgentLogFile):        nil,
		filepath.Join(rd, resultdir.AppLog("replica-0")): []byte(`{"event":"up","mode":"close"}` + "\n"),
	}
	for name, b := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := resultdir.WriteVariants(dir, []resultdir.VariantRef{{Label: "mode=close", Slug: "mode-close"}, {Label: "mode=full", Slug: "mode-full"}}); err != nil {
		t.Fatal(err)
	}
	e := resultdir.Effective{Scenario: "fixture-roll", Sets: []string{"load.clients=5"},
		Variants: []resultdir.EffectiveVariant{{Label: "mode=close", Spec: spec}, {Label: "mode=full", Spec: spec}}}
	if err := resultdir.WriteEffective(dir, e); err != nil {
		t.Fatal(err)
	}
}

// A result whose harness was killed before any run finished is titled
// with the scenario's name from effective.json, not the directory's, and
// its unknown machine is "unknown", never "0 cores"; every output is
// checked against testdata/golden-killed.
func TestKilledResult(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "20261129-181500-fixture-roll")
	writeKilledResult(t, dir)
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res.GeneratedAt = goldenTime
	if res.Scenario != "fixture-roll" {
		t.Errorf("Scenario = %q, want fixture-roll (from effective.json)", res.Scenario)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, res); err != nil {
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
	checkGoldens(t, res, "golden-killed")

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
