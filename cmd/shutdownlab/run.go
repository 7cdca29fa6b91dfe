package main

import (
	"context"
	"github.com/shutdownlab/shutdownlab/internal/runplan"
	"io"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

const runUsage = `Usage: shutdownlab run SCENARIO... [--runs N] [--out DIR] [--set key=value]... [--image NAME] [--expect EXPR]... [--junit FILE] [--kubeconfig FILE] [--context CTX] [--registry HOST[:PORT][/PREFIX]]

SCENARIO is a catalog name (see 'shutdownlab list') or a path to a .yaml file.
Each scenario's runs are written to DIR/<timestamp>-<scenario>/ with report.md and CSVs.
Everything is checked before anything starts (scenario files, --set values,
expectations and the metrics they name, --reference-variant, --image, and
that --out and --junit can be written); a refusal exits 64 and writes nothing.
A scenario with platform: kubernetes (or --set platform=kubernetes) runs on
the cluster of --kubeconfig/--context (default: the usual kubeconfig rules),
in a namespace of its own that it deletes at the end; --registry (default
$SHUTDOWNLAB_REGISTRY) is where it pushes the images its pods run.
Exit 0: all runs valid and every expectation held; 1: an expectation failed;
2: a run was invalid or the harness failed; 64: bad usage or input.
`

// setFlags collects repeated --set key=value flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	p, err := planRun(ctx, args, stdout, stderr)
	if err != nil {
		return exitUsage, err
	}
	return p.Execute(ctx, stdout, stderr)
}

// planRun parses the command line and checks everything that can be
// checked before a container starts or a directory is written: the flags,
// an image named by --image or --set target.image (present on the
// engine), the scenarios and their expectations, the outputs, then the
// images the scenario files name.
func planRun(ctx context.Context, args []string, stdout, stderr io.Writer) (*runplan.Plan, error) {
	c := newCommand("run", runUsage)
	runs := c.fs.Int("runs", 0, "repetitions per variant, 1..100 (default: the scenario's runs)")
	out := c.fs.String("out", "results/runs", "root directory for result directories")
	p := runplan.New()
	var exp expectFlags
	exp.register(c)
	var sets setFlags
	c.fs.Var(&sets, "set", "override a scenario field by dotted path, e.g. --set load.duration=4s (repeatable; value at most 64 KiB)")
	image := c.fs.String("image", "", "run this local image instead of the built-in target (= --set target.image=NAME; never pulled)")
	var cluster clusterFlags
	cluster.register(c.fs)
	names, err := c.parse(args, stdout)
	if err != nil {
		return nil, err
	}
	if err := c.checkAliases(stderr); err != nil {
		return nil, err
	}
	if err := cluster.check(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, usagef("run needs at least one scenario (see 'shutdownlab list')")
	}
	if c.isSet("runs") && (*runs < 1 || *runs > 100) {
		return nil, usagef("--runs: %d is out of range 1..100", *runs)
	}
	if err := exp.parse(stderr); err != nil {
		return nil, err
	}
	if *runs > 0 {
		sets = append(setFlags{"runs=" + strconv.Itoa(*runs)}, sets...)
	}
	if *image != "" {
		sets = append(sets, "target.image="+*image)
	}
	if err := scenarios.CheckSets(sets); err != nil {
		return nil, runplan.BadInput(err)
	}
	// An image given on the command line first: when it is missing, that
	// is the error to fix, not what the scenario says about the paths it
	// declares.
	flagImages := runplan.SetImages(sets)
	if err := runplan.CheckImageRefs(ctx, flagImages); err != nil {
		return nil, err
	}
	p.Expect, p.Sets, p.Out = exp.Expectations, sets, *out
	p.Kube, p.Registry = cluster.kube(), cluster.registry
	if err := p.Load(names, stderr); err != nil {
		return nil, err
	}
	if err := p.CheckOutputs(); err != nil {
		return nil, err
	}
	return p, p.CheckImages(ctx, flagImages)
}
