package document

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
)

// TestWritePlots writes the fixture's reports: every plot is a valid PNG,
// report.md links each one by a path that resolves from the result
// directory, and a second rendering gives the same bytes.
func TestWritePlots(t *testing.T) {
	dir := t.TempDir()
	if err := fixture.WriteResult(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Rebuild(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, resultdir.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`!\[[^]]*\]\(([^)]+)\)`).FindAllStringSubmatch(string(md), -1)
	if len(links) != 7 { // failures.png + 6 runs
		t.Fatalf("report.md has %d image links, want 7:\n%s", len(links), md)
	}
	first := map[string][]byte{}
	for _, l := range links {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(l[1])))
		if err != nil {
			t.Fatalf("link %s: %v", l[1], err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", l[1], err)
		}
		if r := img.Bounds(); r.Dx() < 600 || r.Dy() < 300 {
			t.Errorf("%s: %v, too small", l[1], r)
		}
		first[l[1]] = b
	}
	if !strings.Contains(string(md), "](mode-full/run-001/latency.png)") {
		t.Errorf("no link to mode-full/run-001/latency.png")
	}
	if _, err := Rebuild(dir); err != nil {
		t.Fatal(err)
	}
	for name, b := range first {
		again, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if !bytes.Equal(again, b) {
			t.Errorf("%s differs between two renderings", name)
		}
	}
}

// TestWritePlotsMissingRecords: a run without records gets no plot, a note
// says so, and the report is still written.
func TestWritePlotsMissingRecords(t *testing.T) {
	dir := t.TempDir()
	if err := fixture.WriteResult(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "mode-full", "run-002", "records.jsonl")); err != nil {
		t.Fatal(err)
	}
	if _, err := Rebuild(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, resultdir.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Plot notes") || !strings.Contains(string(md), "mode=full run 2: latency plot not drawn") {
		t.Errorf("no plot note in report.md:\n%s", md)
	}
	if strings.Contains(string(md), "mode-full/run-002/latency.png") {
		t.Errorf("report.md links a plot that was not drawn")
	}
	if _, err := os.Stat(filepath.Join(dir, "mode-full", "run-001", resultdir.LatencyPlotFile)); err != nil {
		t.Errorf("other runs lost their plots: %v", err)
	}
}
