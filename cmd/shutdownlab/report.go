package main

import (
	"fmt"
	"io"
	"maps"
	"slices"

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
	exp.register(c.fs)
	pos, err := c.parse(args, stdout)
	if err != nil {
		return exitUsage, err
	}
	if len(pos) != 1 {
		return exitUsage, usagef("report needs exactly one result directory")
	}
	if err := exp.parse(); err != nil {
		return exitUsage, err
	}
	if (exp.junit != "" || exp.baselineVariant != "") && len(exp.parsed) == 0 {
		return exitUsage, usagef("--junit and --baseline-variant need at least one --expect")
	}
	dir := pos[0]
	if err := resultDirExists(dir); err != nil {
		return exitUsage, err
	}
	if err := checkWritableFile("--junit", exp.junit); exp.junit != "" && err != nil {
		return exitUsage, err
	}
	res, err := document.Rebuild(dir)
	if err != nil {
		return exitInvalid, err
	}
	noteUnreadable(stderr, res)
	if err := report.WriteTerminalTable(stdout, res); err != nil {
		return exitInvalid, err
	}
	fmt.Fprintf(stdout, "\nwrote %s/{%s,%s,%s,%s} and plots\n", dir,
		resultdir.MarkdownFile, resultdir.CSVFile, resultdir.SpreadCSVFile, resultdir.SummaryFile)
	if err := checkExpectations("result "+dir, exp.parsed, resultCapabilities(dir, res), exp.baselineVariant, res.Labels()); err != nil {
		return exitUsage, err
	}
	invalid := gate.InvalidRuns(res)
	code, err := exp.judge(stdout, res, exp.parsed, invalid, 1)
	if err != nil {
		return exitInvalid, err
	}
	if invalid > 0 {
		code = exitInvalid
	}
	return code, nil
}

// noteUnreadable prints one line per run directory Load could not read.
func noteUnreadable(stderr io.Writer, res *report.Result) {
	for _, u := range res.Unreadable {
		fmt.Fprintf(stderr, "shutdownlab: skipped unreadable run %s\n", u)
	}
}

// resultCapabilities says which optional metrics a saved result can have:
// from its runs, and from the specs it was run with.
func resultCapabilities(dir string, res *report.Result) gate.Capabilities {
	specs, _ := resultSpecs(dir)
	return gate.CapabilitiesOf(res).Merge(gate.CapabilitiesOfSpecs(slices.Collect(maps.Values(specs))))
}
