package reproduce_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities/cluster"
	"github.com/shutdownlab/shutdownlab/capabilities/websockets"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/document"
	"github.com/shutdownlab/shutdownlab/reproduce"
	"github.com/shutdownlab/shutdownlab/reproduce/reprotest"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenReport judges P1, P2, P3, P5 and P6 on synthetic Node and Go
// results: reproduced, differs (with the Go reason), a scenario that failed
// on Go, and probe metrics this build may not compute.
func goldenReport(t *testing.T) *reproduce.Report {
	reproduce.NoProbe(t)
	claims, err := reproduce.Select([]string{"P1", "P2", "P3", "P5", "P6"})
	if err != nil {
		t.Fatal(err)
	}
	direct := func(rt string, closeRuns []report.Run) *report.Result {
		return reprotest.Result("direct-inflight", rt,
			reprotest.Variant("mode=none", reprotest.Runs(3, reprotest.Dropped(20), reprotest.Inflight(20), reprotest.ExitAfter(305)), reprotest.Runs(0)),
			reprotest.Variant("mode=close", closeRuns),
			reprotest.Variant("mode=full", reprotest.Runs(3, reprotest.Dropped(0), reprotest.ExitAfter(420))))
	}
	srs := []reproduce.ScenarioResult{
		{Scenario: "pid1-signal", Runtime: "node", Dir: "node/20260101-120000-pid1-signal",
			Result: reprotest.Result("pid1-signal", "node", reprotest.Variant("init=false", reprotest.Runs(3, reprotest.Handled(false))), reprotest.Variant("init=true", reprotest.Runs(3, reprotest.ExitCode(143), reprotest.ExitAfter(35))))},
		{Scenario: "pid1-signal", Runtime: "go", Dir: "go/20260101-120100-pid1-signal",
			Result: reprotest.Result("pid1-signal", "go", reprotest.Variant("init=false", reprotest.Runs(3, reprotest.ExitCode(2), reprotest.ExitAfter(11))), reprotest.Variant("init=true", reprotest.Runs(3, reprotest.ExitCode(2), reprotest.ExitAfter(14))))},
		{Scenario: "direct-inflight", Runtime: "node", Dir: "node/20260101-120200-direct-inflight",
			Result: direct("node", append(reprotest.Runs(2, reprotest.Dropped(0), reprotest.Served(190), reprotest.ExitAfter(3050)), reprotest.Run(reprotest.Dropped(0), reprotest.Served(210), reprotest.ExitAfter(3120))))},
		{Scenario: "direct-inflight", Runtime: "go", Err: "target image: build failed"},
		{Scenario: "p5-idle-socket", Runtime: "node", Dir: "runtimes/20260101-120300-p5-idle-socket",
			Result: reprotest.Result("p5-idle-socket", "node", reprotest.Variant("default", reprotest.Runs(3)))},
		{Scenario: "p5-idle-socket", Runtime: "go", Dir: "runtimes/20260101-120300-p5-idle-socket",
			Result: reprotest.Result("p5-idle-socket", "go", reprotest.Variant("default", reprotest.Runs(3)))},
		{Scenario: "p6-inflight-socket", Runtime: "node", Err: "scenario p6-inflight-socket is not in this build's catalog"},
		{Scenario: "p6-inflight-socket", Runtime: "go", NotApplicable: "scenario p6-inflight-socket runs target.runtime node only"},
	}
	rep := reproduce.Assemble(claims, []string{"node", "go"}, 3, srs)
	rep.GeneratedAt = time.Date(2026, 1, 1, 12, 30, 0, 0, time.UTC)
	rep.Failed = true
	return rep
}

func TestGolden(t *testing.T) {
	rep := goldenReport(t)
	for name, write := range map[string]func(*bytes.Buffer) error{
		"reproduction.golden.md":  func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) },
		"reproduction.golden.csv": func(b *bytes.Buffer) error { return rep.WriteCSV(b) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from the golden file (go test ./reproduce -update to accept):\n%s", name, b.String())
		}
	}
}

// The verdicts the golden report is built on.
func TestGoldenVerdicts(t *testing.T) {
	rep := goldenReport(t)
	want := map[string][2]reproduce.Status{
		"P1": {reproduce.Reproduced, reproduce.Differs},
		"P2": {reproduce.Reproduced, reproduce.NotRun},
		"P3": {reproduce.Reproduced, reproduce.NotRun},
		"P5": {reproduce.NotRun, reproduce.NotRun},
		"P6": {reproduce.NotRun, reproduce.NotApplicable},
	}
	for _, cr := range rep.Claims {
		w := want[cr.Claim.ID]
		if got := [2]reproduce.Status{cr.Verdicts["node"].Status, cr.Verdicts["go"].Status}; got != w {
			t.Errorf("%s: %v, want %v", cr.Claim.ID, got, w)
		}
	}
	if rep.Versions["node"] != "node v20.20.2" || rep.Fingerprint.CPU != "Synthetic CPU" {
		t.Errorf("versions %v, fingerprint %+v", rep.Versions, rep.Fingerprint)
	}
}

// failingRunner fails every scenario, recording what it was asked.
type failingRunner struct{ calls []string }

func (f *failingRunner) RunScenario(_ context.Context, sc *scenarios.Scenario, out string, sets []string) (reproduce.Outcome, error) {
	f.calls = append(f.calls, sc.Name()+" "+filepath.Base(out)+" "+strings.Join(sets, " "))
	return reproduce.Outcome{}, errors.New("docker: engine unreachable")
}

// A scenario that fails leaves its claims not run and Failed set; a
// scenario missing from the catalog is not run without failing; the report
// is written either way.
func TestRunFailures(t *testing.T) {
	fr := &failingRunner{}
	find := func(name string) (*scenarios.Scenario, error) {
		if name == "p5-idle-socket" {
			return nil, errors.New("unknown scenario")
		}
		return scenarios.Find(name)
	}
	var log bytes.Buffer
	out := t.TempDir()
	rep, err := reproduce.Run(context.Background(), reproduce.Options{Runs: 1, Only: []string{"P2", "P3", "P4", "P5"}, Out: out, Runner: fr, Rebuild: document.Rebuild, Log: &log, Find: find,
		Now: func() time.Time { return time.Date(2026, 1, 1, 12, 0, 0, 0, time.Local) }})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed {
		t.Error("Failed not set")
	}
	wantCalls := []string{
		"direct-inflight node runs=1 target.runtime=node",
		"direct-inflight go runs=1 target.runtime=go",
		"roll-behind-caddy runtimes runs=1",
	}
	if strings.Join(fr.calls, "\n") != strings.Join(wantCalls, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(fr.calls, "\n"), strings.Join(wantCalls, "\n"))
	}
	for _, cr := range rep.Claims {
		for rt, v := range cr.Verdicts {
			if v.Status != reproduce.NotRun {
				t.Errorf("%s on %s: %s, want not_run", cr.Claim.ID, rt, v.Status)
			}
			want := "engine unreachable"
			if cr.Claim.ID == "P5" {
				want = "not in this build's catalog"
			}
			if !strings.Contains(v.Why, want) {
				t.Errorf("%s on %s: why %q, want %q", cr.Claim.ID, rt, v.Why, want)
			}
		}
	}
	dir := filepath.Join(out, "20260101-120000-reproduce")
	if rep.Dir != dir {
		t.Errorf("dir %s, want %s", rep.Dir, dir)
	}
	for _, f := range []string{reproduce.MarkdownFile, reproduce.CSVFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(log.String(), "estimated duration: node ~") {
		t.Errorf("no estimate in the log:\n%s", log.String())
	}
}

// Run refuses options without a scenario runner or a report writer,
// before it runs anything.
func TestRunNeedsRunnerAndRebuild(t *testing.T) {
	fr := &failingRunner{}
	if _, err := reproduce.Run(context.Background(), reproduce.Options{Rebuild: document.Rebuild, Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no scenario runner") {
		t.Errorf("no runner: %v", err)
	}
	if _, err := reproduce.Run(context.Background(), reproduce.Options{Runner: fr, Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "Options.Rebuild") {
		t.Errorf("no Rebuild: %v", err)
	}
	if len(fr.calls) != 0 {
		t.Errorf("ran %v without a report writer", fr.calls)
	}
}

// A report names the source of the claims it judges: the P rig, the W
// article, the C article, or several.
func TestSourceLines(t *testing.T) {
	rep := func(ids ...string) *reproduce.Report {
		r := &reproduce.Report{}
		for _, id := range ids {
			r.Claims = append(r.Claims, reproduce.ClaimResult{Claim: reprotest.ClaimByID(t, reproduce.Claims(), id)})
		}
		return r
	}
	cases := []struct {
		name          string
		rep           *reproduce.Report
		rig, art, cls bool
	}{
		{"no claims", rep(), true, false, false},
		{"P only", rep("P2"), true, false, false},
		{"W only", rep("W2", "W3"), false, true, false},
		{"both", rep("P9", "W6"), true, true, false},
		{"C only", rep("C1", "C4"), false, false, true},
		{"W and C", rep("W1", "C2"), false, true, true},
	}
	for _, tc := range cases {
		got := strings.Join(tc.rep.SourceLines(), "\n")
		if strings.Contains(got, reproduce.SourceRig) != tc.rig || strings.Contains(got, websockets.ClaimsSource) != tc.art || strings.Contains(got, cluster.ClaimsSource) != tc.cls {
			t.Errorf("%s: %q; want rig %v, ws article %v, cluster article %v", tc.name, got, tc.rig, tc.art, tc.cls)
		}
	}
}
