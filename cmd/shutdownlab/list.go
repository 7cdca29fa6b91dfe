package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

func cmdList(args []string, stdout io.Writer) error {
	c := newCommand("list", "Usage: shutdownlab list\n\nLists the embedded scenario catalog.\n")
	pos, err := c.parse(args, stdout)
	if err != nil {
		return err
	}
	if err := noArgs("list", pos); err != nil {
		return err
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
