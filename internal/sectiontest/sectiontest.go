// Package sectiontest holds what the tests of report's sections and of
// the capabilities share.
package sectiontest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/report"
)

// LoadFixture loads the committed synthetic result report/testdata/name
// (internal/fixture writes it) from a package two directories below the
// module's root (capabilities/NAME), with the goldens' generated_at.
func LoadFixture(t *testing.T, name string) *report.Result {
	t.Helper()
	res, err := report.Load(filepath.Join("..", "..", "report", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	res.GeneratedAt = fixture.GeneratedAt
	return res
}

// WriteReport loads the result in dir, draws s's plots and writes the
// reports with s as its one section, as report/document does with every
// section, and returns report.md.
func WriteReport(t *testing.T, dir string, s report.Section) []byte {
	t.Helper()
	res, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	plots := &report.PlotSet{Notes: s.Plots(dir, res)}
	if err := report.Write(dir, res, plots, []report.Section{s}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, resultdir.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	return md
}
