package main

import (
	"fmt"
	"github.com/shutdownlab/shutdownlab/internal/runplan"
	"io"
	"strings"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/report"
)

const gateUsage = `Usage: shutdownlab gate NEW --baseline OLD [flags]

Compares two saved result directories metric by metric (medians over valid
runs, variants matched by label): losses absolutely, latencies as ratios
above a noise floor in ms. Needs no Docker.

First it checks that the two are comparable: the same scenario, the same
variants, a baseline with valid runs, and the same load (kind, shape,
clients, duration, rate, request limit, mix), action (kind, time, signal,
stop grace), topology and replicas, as events.json and effective.json
record them. If not, it says which field differs, with both values, and
exits 2 without a verdict.

Exit 0 no regression; 1 a regression; 2 NEW has invalid runs, or the two
are not comparable; 64 bad usage.
`

func cmdGate(args []string, stdout, stderr io.Writer) (int, error) {
	c := newCommand("gate", gateUsage)
	def := gate.DefaultTolerance()
	oldDir := c.fs.String("baseline", "", "the result directory to compare against (required)")
	ratio := c.fs.Float64("ratio", def.Ratio, "a latency regresses when new/old median exceeds this ratio")
	abs := c.fs.Float64("abs", def.Abs, "a loss count regresses when new-old median exceeds this")
	minMs := c.fs.Float64("min-ms", def.MinMs, "latency noise floor: a latency only regresses when it also grew by more than this many ms (0: no floor)")
	pos, err := c.parse(args, stdout)
	if err != nil {
		return exitUsage, err
	}
	if len(pos) != 1 || *oldDir == "" {
		return exitUsage, usagef("gate needs one result directory and --baseline OLD")
	}
	if *ratio < 1 || *abs < 0 || *minMs < 0 {
		return exitUsage, usagef("gate: --ratio %g must be >= 1, --abs %g and --min-ms %g >= 0", *ratio, *abs, *minMs)
	}
	for _, d := range []string{pos[0], *oldDir} {
		if err := runplan.ResultDirExists(d); err != nil {
			return exitUsage, err
		}
	}
	newRes, err := report.Load(pos[0])
	if err != nil {
		return exitInvalid, err
	}
	oldRes, err := report.Load(*oldDir)
	if err != nil {
		return exitInvalid, err
	}
	tol := gate.Tolerance{Abs: *abs, Ratio: *ratio, MinMs: *minMs}
	info := gate.NewInfo(newRes, oldRes, tol)
	newSetup, n1 := runplan.ResultSetup(pos[0], newRes, "new")
	oldSetup, n2 := runplan.ResultSetup(*oldDir, oldRes, "baseline")
	info.Notes = append(append(append(info.Notes, n1...), n2...), gate.Unrecorded(newRes, oldRes, newSetup, oldSetup)...)
	if reasons := gate.Comparable(newRes, oldRes, newSetup, oldSetup); len(reasons) > 0 {
		if err := gate.WriteNotComparable(stdout, info, reasons); err != nil {
			return exitInvalid, err
		}
		return exitInvalid, fmt.Errorf("gate: %s and %s are not comparable: %s", pos[0], *oldDir, strings.Join(reasons, "; "))
	}
	rs := gate.Compare(newRes, oldRes, tol)
	if err := gate.WriteComparison(stdout, info, rs); err != nil {
		return exitInvalid, err
	}
	return gate.CompareExitCode(gate.InvalidRuns(newRes), rs), nil
}
