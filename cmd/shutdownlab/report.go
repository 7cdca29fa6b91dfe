package main

import (
	"fmt"
	"github.com/shutdownlab/shutdownlab/internal/runplan"
	"io"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/document"
)

const reportUsage = `Usage: shutdownlab report DIR [--expect EXPR]... [--junit FILE]

Rebuilds summary.json, report.md, report.csv, spread.csv and the plots from the runs saved in DIR,
and judges expectations against them. Needs no Docker. A run directory that cannot be read
(broken events.json or records) is skipped with a note, in report.md and on stderr, and counts
as not valid. Exit codes as for run.
`

func cmdReport(args []string, stdout, stderr io.Writer) (int, error) {
	c := newCommand("report", reportUsage)
	var exp expectFlags
	exp.register(c)
	pos, err := c.parse(args, stdout)
	if err != nil {
		return exitUsage, err
	}
	if err := c.checkAliases(stderr); err != nil {
		return exitUsage, err
	}
	if len(pos) != 1 {
		return exitUsage, usagef("report needs exactly one result directory")
	}
	if err := exp.parse(stderr); err != nil {
		return exitUsage, err
	}
	if (exp.JUnit != "" || exp.ReferenceVariant != "") && len(exp.Parsed) == 0 {
		return exitUsage, usagef("--junit and --reference-variant need at least one --expect")
	}
	dir := pos[0]
	if err := runplan.ResultDirExists(dir); err != nil {
		return exitUsage, err
	}
	if err := runplan.CheckWritableFile("--junit", exp.JUnit); exp.JUnit != "" && err != nil {
		return exitUsage, err
	}
	res, err := document.Rebuild(dir)
	if err != nil {
		return exitInvalid, err
	}
	runplan.NoteUnreadable(stderr, res)
	if err := report.WriteTerminalTable(stdout, res); err != nil {
		return exitInvalid, err
	}
	fmt.Fprintf(stdout, "\nwrote %s/{%s,%s,%s,%s} and plots\n", dir,
		resultdir.MarkdownFile, resultdir.CSVFile, resultdir.SpreadCSVFile, resultdir.SummaryFile)
	if err := runplan.CheckExpectations("result "+dir, exp.Parsed, runplan.ResultCapabilities(dir, res), exp.ReferenceVariant, res.Labels()); err != nil {
		return exitUsage, err
	}
	invalid := gate.InvalidRuns(res)
	code, err := exp.Judge(stdout, res, exp.Parsed, invalid, 1)
	if err != nil {
		return exitInvalid, err
	}
	if invalid > 0 {
		code = exitInvalid
	}
	return code, nil
}
