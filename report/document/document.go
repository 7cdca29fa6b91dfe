// Package document assembles shutdownlab's report of a result directory:
// the core outputs of package report (summary.json, report.md, report.csv,
// spread.csv), the plots, and every capability's section of report.md, in
// one explicit order (Sections). The CLI and reproduce write reports
// through it, so no report is written without its sections.
package document

import (
	"io"

	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/plots"
	"github.com/shutdownlab/shutdownlab/report/sections/deregistration"
	"github.com/shutdownlab/shutdownlab/report/sections/queuejobs"
	"github.com/shutdownlab/shutdownlab/report/sections/rollout"
	"github.com/shutdownlab/shutdownlab/report/sections/websockets"
)

// Sections returns a fresh value of every capability's section, in the
// order report.md shows them after the table of all metrics: the
// WebSocket plots, the deregistration race, the rollout, the jobs.
func Sections() []report.Section {
	return []report.Section{&websockets.Section{}, &deregistration.Section{}, &rollout.Section{}, &queuejobs.Section{}}
}

// WriteMarkdown writes report.md of res with every section, linking no
// plots (Write draws and links them).
func WriteMarkdown(w io.Writer, res *report.Result) error {
	return report.WriteMarkdown(w, res, nil, Sections())
}

// Write draws the plots of res into dir (failures.png, every run's
// latency.png, each section's own) and writes summary.json, report.md,
// report.csv and spread.csv, report.md linking the plots. A plot that
// cannot be drawn is noted in report.md and does not fail Write. A zero
// res.GeneratedAt is set to the current UTC time.
func Write(dir string, res *report.Result) error {
	sections := Sections()
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
