package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// writeFixtureEffective writes effective.json as the runner does for the
// fixture's scenario run with --set load.clients=N: each variant's spec
// set up as the fixture's runs recorded it (mode=close: SIGTERM at 1.5 s;
// mode=full: docker stop -t 10 at 1.5 s).
func writeFixtureEffective(t *testing.T, dir string, clients int) {
	t.Helper()
	e := resultdir.Effective{Scenario: "fixture-roll", Sets: []string{"load.clients=" + itoa(clients)}}
	for _, label := range []string{"mode=close", "mode=full"} {
		sp := scenarios.Defaults()
		sp.Name, sp.Load.Clients = "fixture-roll", clients
		sp.Action.At = scenarios.Duration(1500 * time.Millisecond)
		if label == "mode=full" {
			timeout := scenarios.Seconds(10)
			sp.Action.Kind, sp.Action.Timeout = scenarios.ActionStop, &timeout
		} else {
			sp.Action.Signal = "SIGTERM"
		}
		b, err := json.Marshal(sp)
		if err != nil {
			t.Fatal(err)
		}
		e.Variants = append(e.Variants, resultdir.EffectiveVariant{Label: label, Spec: b})
	}
	if err := resultdir.WriteEffective(dir, e); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// killedResult builds, in a temp dir, what `run --set load.clients=N` of
// the fixture's scenario leaves when the harness is SIGKILLed during its
// first run: scenario.yaml, variants.json and effective.json (written
// before the first run), and one run directory with the start of its
// records, cut mid-line; no events.json, no report files.
func killedResult(t *testing.T, clients int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "20261129-181500-fixture-roll")
	fixture := "../../report/testdata/result"
	recs, err := os.ReadFile(filepath.Join(fixture, "mode-close", "run-001", resultdir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	variants, err := os.ReadFile(filepath.Join(fixture, resultdir.VariantsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(recs), "\n")
	rd := resultdir.RunDir(dir, "mode-close", 1)
	if err := os.MkdirAll(rd, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		filepath.Join(dir, resultdir.ScenarioFile):   "name: fixture-roll\nvariants:\n  target.mode: [close, full]\n",
		filepath.Join(dir, resultdir.VariantsFile):   string(variants),
		filepath.Join(rd, resultdir.RecordsFile):     strings.Join(lines[:4], "") + lines[4][:40],
		filepath.Join(rd, resultdir.AgentLogFile):    "",
		filepath.Join(rd, resultdir.AppLog("app-a")): `{"event":"up","mode":"close"}` + "\n",
	} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFixtureEffective(t, dir, clients)
	return dir
}

// report on a killed run: titled with the scenario's name, not the
// directory's, and the machine unknown, never "0 cores".
func TestReportKilledRun(t *testing.T) {
	dir := killedResult(t, 5)
	code, out, stderr := runMain(t, context.Background(), "report", dir)
	if code != exitInvalid {
		t.Errorf("exit %d, want 2 (no valid run)\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, resultdir.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# shutdownlab report: fixture-roll\n", "**Machine:** unknown (no run recorded it)",
		"missing events.json: the run never finished", "Run with `--set load.clients=5`"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(string(md), "0 cores") || strings.Contains(string(md), "report: 20261129") {
		t.Errorf("report.md shows the directory's name or 0 cores:\n%.600s", md)
	}
}

// gate with a killed run on either side compares the values it ran with
// (effective.json, --set included), not the catalog's, under the
// scenario's name; its notes agree with its reasons.
func TestGateKilledRun(t *testing.T) {
	t.Run("same --set", func(t *testing.T) {
		old := fixtureCopy(t, true)
		writeFixtureEffective(t, old, 5)
		code, out, stderr := runMain(t, context.Background(), "gate", killedResult(t, 5), "--baseline", old)
		// Comparable: the same scenario and load; the new side has no
		// valid run, so nothing is compared: no verdict, exit 2 (it used
		// to say "No regression").
		if code != exitInvalid || strings.Contains(out, "Not comparable") || !strings.Contains(out, "Scenario: `fixture-roll`") ||
			!strings.Contains(out, "**No verdict**: no variant has a valid run on both sides") || strings.Contains(out, "No regression") {
			t.Errorf("exit %d, want 2 from a comparable result with no valid run\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
		}
		for _, bad := range []string{"load.clients", "effective.json", "does not record"} {
			if strings.Contains(out, bad) || strings.Contains(stderr, bad) {
				t.Errorf("output mentions %q\nstdout:\n%s\nstderr:\n%s", bad, out, stderr)
			}
		}
	})
	t.Run("other --set", func(t *testing.T) {
		old := fixtureCopy(t, true)
		writeFixtureEffective(t, old, 20)
		code, out, stderr := runMain(t, context.Background(), "gate", killedResult(t, 5), "--baseline", old)
		if code != exitInvalid || !strings.Contains(out, "Not comparable") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
		}
		for _, v := range []string{"mode=close", "mode=full"} {
			if want := "variant " + v + ": load.clients: new 5, baseline 20"; !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "scenario:") || strings.Contains(out, "not compared") {
			t.Errorf("a reason or note beside the load:\n%s", out)
		}
	})
}
