package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/report/document"
	"github.com/shutdownlab/shutdownlab/reproduce"
)

const reproduceUsage = `Usage: shutdownlab reproduce [--runs 3] [--runtime node,go] [--only P1,P5] [--out DIR]

Re-measures the published claims P1-P12, W1-W6, J1-J5 and C1-C4 (docs/claims.md)
on this machine (--only W2,W3 selects claims; default all twenty-seven): runs
every scenario they need once per runtime, judges each claim by its rule
(shapes and orders of magnitude, not exact milliseconds) and writes
DIR/<timestamp>-reproduce/REPRODUCTION.md and reproduction.csv, with a
Node-vs-Go table per scenario and every scenario's own report.md.

Duration: P1-P12 took 47 min measured for both runtimes at 3 runs (~25 min
for one) on a 2-core machine, plus image builds; W1-W6 took 30 min for
both (one scenario at a time, Docker lock waits included); at the start
it prints its own upper-bound estimate for the claims, runtimes and runs
chosen (P1-P12 at 3 runs: ~35 min per runtime). C1-C4 run the Node
cluster target, so they are not applicable on go; J1-J5 run the Go
target's queue worker, so they are not applicable on node.
Exit 0: the report was written (claims may differ); 2: a scenario failed to
run or had invalid runs (its claims are "not run"); 64: bad usage.
`

func cmdReproduce(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	c := newCommand("reproduce", reproduceUsage)
	fs := c.fs
	runs := fs.Int("runs", 3, "repetitions per variant (the published figures are spreads of 3)")
	rts := fs.String("runtime", strings.Join(reproduce.DefaultRuntimes, ","), "target runtimes to measure, comma-separated: node, go")
	only := fs.String("only", "", "claims to reproduce, comma-separated (e.g. P1,P5 or W2,W3); default all")
	out := fs.String("out", "results/runs", "root directory for the reproduction directory")
	pos, err := c.parse(args, stdout)
	if err != nil {
		return exitUsage, err
	}
	if err := noArgs("reproduce", pos); err != nil {
		return exitUsage, err
	}
	if *runs < 1 || *runs > 100 {
		return exitUsage, usagef("--runs: %d is out of range 1..100", *runs)
	}
	opts := reproduce.Options{Runs: *runs, Runtimes: splitList(*rts), Only: splitList(*only), Out: *out, Log: stderr}
	if len(opts.Runtimes) == 0 {
		return exitUsage, usagef("--runtime: need node, go or both")
	}
	// Check the claims and runtimes before touching Docker.
	claims, err := reproduce.Select(opts.Only)
	if err != nil {
		return exitUsage, usagef("--only: %v", err)
	}
	if _, err := reproduce.Plan(claims, opts.Runtimes, opts.Runs, nil); err != nil {
		return exitUsage, usagef("--runtime: %v", err)
	}
	dr := reproduce.NewDockerRunner(runner.NewProgress(stderr))
	defer dr.Close()
	opts.Runner, opts.Rebuild = dr, document.Rebuild
	rep, err := reproduce.Run(ctx, opts)
	if err != nil {
		return exitInvalid, err
	}
	writeSummary(stdout, rep)
	if rep.Failed || ctx.Err() != nil {
		return exitInvalid, nil
	}
	return exitOK, nil
}

// writeSummary prints one line per claim: its verdict per runtime.
func writeSummary(w io.Writer, rep *reproduce.Report) {
	fmt.Fprintln(w)
	for _, cr := range rep.Claims {
		var parts []string
		for _, rt := range rep.Runtimes {
			parts = append(parts, rt+": "+string(cr.Verdicts[rt].Status))
		}
		fmt.Fprintf(w, "%-4s %-20s %s\n", cr.Claim.ID, cr.Claim.Scenario, strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "\n-> %s/%s\n", rep.Dir, reproduce.MarkdownFile)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
