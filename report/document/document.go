// Package document assembles shutdownlab's report of a result directory:
// the core outputs of package report (summary.json, report.md, report.csv,
// spread.csv), the plots, and every capability's section of report.md, in
// the explicit order of package capabilities, whose capabilities the
// program installs at start (capabilities.Install). The CLI writes
// reports through it, and hands Rebuild to reproduce (which cannot import
// it: reproduce.Options.Rebuild), so no report is written without its
// sections.
package document

import (
	"io"

	"github.com/shutdownlab/shutdownlab/capabilities"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/plots"
)

// WriteMarkdown writes report.md of res with every section, linking no
// plots (Write draws and links them).
func WriteMarkdown(w io.Writer, res *report.Result) error {
	return report.WriteMarkdown(w, res, nil, capabilities.Sections())
}

// Write draws the plots of res into dir (failures.png, every run's
// latency.png, each section's own) and writes summary.json, report.md,
// report.csv and spread.csv, report.md linking the plots. A plot that
// cannot be drawn is noted in report.md and does not fail Write. A zero
// res.GeneratedAt is set to the current UTC time.
func Write(dir string, res *report.Result) error {
	sections := capabilities.Sections()
	ps := plots.Write(dir, res)
	for _, s := range sections {
		ps.Notes = append(ps.Notes, s.Plots(dir, res)...)
	}
	return report.Write(dir, res, ps, sections)
}

// Rebuild re-reads a result directory and rewrites its reports; it needs no
// Docker (used by "shutdownlab report DIR").
func Rebuild(dir string) (*report.Result, error) {
	res, err := report.Load(dir)
	if err != nil {
		return nil, err
	}
	return res, Write(dir, res)
}
