package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
)

var update = flag.Bool("update", false, "rewrite the fixtures testdata/result, wsresult, jobsresult and testdata/golden/timeline.md "+
	"(then run go test -update in report/document, which reads them, to rewrite the goldens)")

// The committed synthetic result directories (internal/fixture
// writes them).
var (
	fixtureDir     = filepath.Join("testdata", fixture.ResultDir)
	wsFixtureDir   = filepath.Join("testdata", fixture.WSDir)
	jobsFixtureDir = filepath.Join("testdata", fixture.JobsDir)
)

// at is the fixtures' load start + n ms.
func at(n float64) int64 { return fixture.At(n) }

// fixtureWritten records the fixtures -update has rewritten in this test
// binary, so each is rewritten once.
var fixtureWritten = map[string]bool{}

// loadFixtureDir loads the synthetic result in dir, rewriting it first
// with write under -update.
func loadFixtureDir(t *testing.T, dir string, write func(string) error) *Result {
	t.Helper()
	if *update && !fixtureWritten[dir] {
		fixtureWritten[dir] = true
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := write(dir); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res.GeneratedAt = fixture.GeneratedAt
	return res
}

func loadFixture(t *testing.T) *Result { return loadFixtureDir(t, fixtureDir, fixture.WriteResult) }

// loadWSFixture loads testdata/wsresult (rewritten first with -update).
func loadWSFixture(t *testing.T) *Result { return loadFixtureDir(t, wsFixtureDir, fixture.WriteWS) }

// loadJobsFixture loads testdata/jobsresult (rewritten first with -update).
func loadJobsFixture(t *testing.T) *Result {
	return loadFixtureDir(t, jobsFixtureDir, fixture.WriteJobs)
}

// TestFixtureShape checks the fixture says what the goldens claim: an
// invalid run, an accounting error, NEVER exits.
func TestFixtureShape(t *testing.T) {
	res := loadFixture(t)
	if len(res.Variants) != 2 || res.Variants[0].Label != "mode=close" || res.Scenario != "fixture-roll" {
		t.Fatalf("variants/scenario = %d %q", len(res.Variants), res.Scenario)
	}
	closeV, fullV := &res.Variants[0], &res.Variants[1]
	if r := closeV.Runs[2]; r.Valid || r.Reason != "target never ready" {
		t.Errorf("close run 3 = valid %v %q, want invalid", r.Valid, r.Reason)
	}
	if r := fullV.Runs[1]; r.Valid || r.Reason != "accounting error" || r.Metrics.AccountingOK {
		t.Errorf("full run 2 = valid %v %q, want accounting error", r.Valid, r.Reason)
	}
	rows := res.Rows()
	s, _ := closeV.Spreads(rows).Get("exit_after_ms")
	if s.N != 2 || s.Nulls != 2 {
		t.Errorf("close exit_after_ms spread = %+v, want NEVER 2/2", s)
	}
	s, _ = fullV.Spreads(rows).Get("dropped_inflight")
	if s.N != 2 || *s.Max != 1 {
		t.Errorf("full dropped_inflight spread = %+v, want max 1 over 2 runs", s)
	}
}

// TestWSFixtureLoads: the ws fixture loads (rewritten first under
// -update); package websockets checks its shape.
func TestWSFixtureLoads(t *testing.T) {
	if res := loadWSFixture(t); len(res.Variants) != 2 || res.Scenario != "fixture-ws" {
		t.Fatalf("variants/scenario = %d %q", len(res.Variants), res.Scenario)
	}
}

// TestJobsFixtureLoads: the jobs fixture loads (rewritten first under
// -update); package queuejobs checks its shape.
func TestJobsFixtureLoads(t *testing.T) {
	if res := loadJobsFixture(t); len(res.Variants) != 2 || res.Scenario != "fixture-jobs" {
		t.Fatalf("variants/scenario = %d %q", len(res.Variants), res.Scenario)
	}
}
