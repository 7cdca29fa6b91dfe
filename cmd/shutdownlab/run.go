package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// setFlags collects repeated --set key=value flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runs := fs.Int("runs", 0, "repetitions per variant (default: the scenario's runs)")
	out := fs.String("out", "results/runs", "root directory for result directories")
	var exp expectFlags
	exp.register(fs)
	var sets setFlags
	fs.Var(&sets, "set", "override a scenario field by dotted path, e.g. --set load.duration=4s (repeatable)")
	image := fs.String("image", "", "run this local image instead of the built-in target (= --set target.image=NAME; never pulled)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: shutdownlab run SCENARIO... [--runs N] [--out DIR] [--set key=value]... [--image NAME] [--expect EXPR]... [--junit FILE]\n\nSCENARIO is a catalog name (see `shutdownlab list`) or a path to a .yaml file.\nEach scenario's runs are written to DIR/<timestamp>-<scenario>/ with report.md and CSVs.\nExit 0: all runs valid and every expectation held; 1: an expectation failed; 2: a run was invalid or the harness failed.\n\nFlags:")
		fs.PrintDefaults()
	}
	// Accept flags after the scenario names too: run x --runs 1.
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return exitInvalid, &usageError{err.Error()}
	}
	if len(names) == 0 {
		return exitInvalid, &usageError{"run needs at least one scenario (see `shutdownlab list`)"}
	}
	if *runs < 0 || *runs > 100 {
		return exitInvalid, &usageError{fmt.Sprintf("--runs: %d is out of range 1..100", *runs)}
	}
	if err := exp.parse(); err != nil {
		return exitInvalid, err
	}
	if *runs > 0 {
		sets = append(setFlags{"runs=" + strconv.Itoa(*runs)}, sets...)
	}
	if *image != "" {
		sets = append(sets, "target.image="+*image)
	}
	// Load and validate everything before starting anything.
	var scs []*scenarios.Scenario
	exps := map[*scenarios.Scenario][]*gate.Expectation{}
	for _, n := range names {
		sc, err := scenarios.Find(n)
		if err != nil {
			return exitInvalid, err
		}
		if _, err := sc.Expand(sets); err != nil {
			return exitInvalid, err
		}
		if exps[sc], err = exp.withScenario(sc.File, sc.Spec.Expect); err != nil {
			return exitInvalid, err
		}
		scs = append(scs, sc)
	}
	if exp.junit != "" || exp.baseline != "" {
		any := false
		for _, e := range exps {
			any = any || len(e) > 0
		}
		if !any {
			return exitInvalid, &usageError{"--junit and --baseline-variant need an expectation (--expect, or expect: in the scenario)"}
		}
	}
	r, err := runner.New(ctx, runner.Options{Out: *out, Sets: sets, Progress: runner.NewProgress(stderr)})
	if err != nil {
		return exitInvalid, err
	}
	defer r.Close()
	code := exitOK
	for _, sc := range scs {
		oc, err := r.RunScenario(ctx, sc)
		if oc.Dir != "" {
			res, rerr := report.Rebuild(oc.Dir)
			if rerr != nil {
				fmt.Fprintf(stderr, "shutdownlab: report %s: %v\n", oc.Dir, rerr)
				code = exitInvalid
			} else {
				fmt.Fprintln(stdout)
				_ = report.WriteTerminalTable(stdout, res)
				fmt.Fprintf(stdout, "\n%s: %d runs (%d invalid, %d incomplete) -> %s/report.md\n", sc.Name(), oc.Runs, oc.Invalid, oc.Incomplete, oc.Dir)
				failures := oc.Invalid + oc.Incomplete
				if err != nil {
					failures++
				}
				ecode, jerr := exp.judge(stdout, res, exps[sc], failures, len(scs))
				if jerr != nil {
					fmt.Fprintf(stderr, "shutdownlab: %v\n", jerr)
				}
				code = max(code, ecode)
			}
		}
		if err != nil {
			return exitInvalid, err
		}
		if oc.Invalid > 0 || oc.Incomplete > 0 {
			code = exitInvalid
		}
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "interrupted: remaining scenarios skipped")
			return exitInvalid, nil
		}
	}
	return code, nil
}

// parseInterspersed parses flags that may come before, between or after
// positional arguments, returning the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
