package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/shutdownlab/shutdownlab/report"
)

func cmdReport(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprintln(stdout, "Usage: shutdownlab report DIR\n\nRebuilds summary.json, report.md, report.csv and spread.csv from the runs saved in DIR. Needs no Docker.")
	}
	if err := fs.Parse(args); err != nil {
		return &usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		return &usageError{"report needs exactly one result directory"}
	}
	res, err := report.Rebuild(fs.Arg(0))
	if err != nil {
		return err
	}
	if err := report.WriteTerminalTable(stdout, res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s/{report.md,report.csv,spread.csv,summary.json}\n", fs.Arg(0))
	return nil
}
