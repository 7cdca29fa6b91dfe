package reproduce_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/report/document"
	"github.com/shutdownlab/shutdownlab/reproduce"
)

// End to end on Docker: P2 on the Go target, one run per variant (about
// 30 s): the report is written, P2 is judged from real runs, and the
// scenario's own report sits next to it.
func TestSmokeP2(t *testing.T) {
	dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dr := reproduce.NewDockerRunner(runner.NewProgress(os.Stderr))
	defer dr.Close()
	var log bytes.Buffer
	rep, err := reproduce.Run(ctx, reproduce.Options{Runs: 1, Runtimes: []string{"go"}, Only: []string{"P2"}, Out: t.TempDir(), Runner: dr, Rebuild: document.Rebuild, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(log.String())
	if rep.Failed {
		t.Fatalf("reproduction failed:\n%s", log.String())
	}
	v := rep.Claims[0].Verdicts["go"]
	if v.Status != reproduce.Reproduced && v.Status != reproduce.Differs {
		t.Errorf("P2 on go: %s (%s)", v.Status, v.Why)
	}
	if !strings.Contains(v.Measured, "mode=none: dropped_inflight") {
		t.Errorf("measured %q", v.Measured)
	}
	md, err := os.ReadFile(filepath.Join(rep.Dir, reproduce.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "### P2") || !strings.Contains(string(md), "/report.md") {
		t.Errorf("REPRODUCTION.md:\n%s", md)
	}
	reports, _ := filepath.Glob(filepath.Join(rep.Dir, "go", "*-direct-inflight", "report.md"))
	if len(reports) != 1 {
		t.Errorf("scenario reports: %v", reports)
	}
}
