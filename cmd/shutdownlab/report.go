package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/report"
)

func cmdReport(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stdout)
	var exp expectFlags
	exp.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stdout, "Usage: shutdownlab report DIR [--expect EXPR]... [--junit FILE]\n\nRebuilds summary.json, report.md, report.csv, spread.csv and the plots from the runs saved in DIR,\nand judges expectations against them. Needs no Docker. Exit codes as for run.\n\nFlags:")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return exitInvalid, &usageError{err.Error()}
	}
	if len(pos) != 1 {
		return exitInvalid, &usageError{"report needs exactly one result directory"}
	}
	if err := exp.parse(); err != nil {
		return exitInvalid, err
	}
	if (exp.junit != "" || exp.baseline != "") && len(exp.parsed) == 0 {
		return exitInvalid, &usageError{"--junit and --baseline-variant need at least one --expect"}
	}
	dir := pos[0]
	res, err := report.Rebuild(dir)
	if err != nil {
		return exitInvalid, err
	}
	if err := report.WriteTerminalTable(stdout, res); err != nil {
		return exitInvalid, err
	}
	fmt.Fprintf(stdout, "\nwrote %s/{report.md,report.csv,spread.csv,summary.json} and plots\n", dir)
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
