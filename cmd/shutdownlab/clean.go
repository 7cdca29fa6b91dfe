package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/shutdownlab/shutdownlab/internal/runner"
)

func cmdClean(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("clean", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprintln(stdout, "Usage: shutdownlab clean\n\nRemoves every container, network and volume labelled shutdownlab=1 (leftovers of killed runs). Images are kept.")
	}
	if err := fs.Parse(args); err != nil {
		return &usageError{err.Error()}
	}
	msg, err := runner.Clean(ctx)
	if msg != "" {
		fmt.Fprintln(stdout, msg)
	}
	return err
}
