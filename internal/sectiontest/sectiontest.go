// Package sectiontest holds what the section packages' tests share.
package sectiontest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/report"
)

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
