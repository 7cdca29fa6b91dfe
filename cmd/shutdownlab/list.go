package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

func cmdList(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() { fmt.Fprintln(stdout, "Usage: shutdownlab list\n\nLists the embedded scenario catalog.") }
	if err := fs.Parse(args); err != nil {
		return &usageError{err.Error()}
	}
	cat, err := scenarios.Catalog()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tREPRODUCES\tVARIANTS\tDESCRIPTION")
	for _, sc := range cat {
		vs, err := sc.Expand(nil)
		if err != nil {
			return err
		}
		desc := strings.Join(strings.Fields(sc.Spec.Description), " ")
		if len(desc) > 90 {
			desc = desc[:87] + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", sc.Name(), strings.Join(sc.Spec.Reproduces, ","), len(vs), desc)
	}
	return tw.Flush()
}
