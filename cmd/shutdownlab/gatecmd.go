package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/report"
)

func cmdGate(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(stdout)
	def := gate.DefaultTolerance()
	baseline := fs.String("baseline", "", "the result directory to compare against (required)")
	ratio := fs.Float64("ratio", def.Ratio, "a latency regresses when new/old median exceeds this ratio")
	abs := fs.Float64("abs", def.Abs, "a loss count regresses when new-old median exceeds this")
	minMs := fs.Float64("min-ms", def.MinMs, "and a latency only regresses when it also grew by more than this many ms")
	fs.Usage = func() {
		fmt.Fprintln(stdout, "Usage: shutdownlab gate NEW --baseline OLD [flags]\n\nCompares two saved result directories metric by metric (medians over valid runs, variants matched by label):\nlosses absolutely, latencies as ratios. Needs no Docker. Exit 0 no regression, 1 a regression, 2 NEW has invalid runs.\n\nFlags:")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return exitInvalid, &usageError{err.Error()}
	}
	if len(pos) != 1 || *baseline == "" {
		return exitInvalid, &usageError{"gate needs one result directory and --baseline OLD"}
	}
	if *ratio < 1 || *abs < 0 || *minMs < 0 {
		return exitInvalid, &usageError{fmt.Sprintf("gate: --ratio %g must be >= 1, --abs %g and --min-ms %g >= 0", *ratio, *abs, *minMs)}
	}
	newRes, err := report.Load(pos[0])
	if err != nil {
		return exitInvalid, err
	}
	oldRes, err := report.Load(*baseline)
	if err != nil {
		return exitInvalid, err
	}
	if newRes.Scenario != oldRes.Scenario {
		fmt.Fprintf(stdout, "note: comparing scenario %q with %q\n", newRes.Scenario, oldRes.Scenario)
	}
	rs := gate.Compare(newRes, oldRes, gate.Tolerance{Abs: *abs, Ratio: *ratio, MinMs: *minMs})
	if err := gate.WriteComparison(stdout, rs); err != nil {
		return exitInvalid, err
	}
	return gate.CompareExitCode(gate.InvalidRuns(newRes), rs), nil
}
