package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/swarm"
)

const cleanUsage = `Usage: shutdownlab clean [--all [--yes]] [--context CTX] [--kubeconfig FILE]

Removes orphaned containers, networks and volumes labelled shutdownlab=1:
those whose owner process (recorded in their labels: host, pid, start time)
is gone. Objects of a run still going on this host, of another host, or made
by an older shutdownlab without owner labels are listed and kept.
--all removes every object labelled shutdownlab=1, live runs' included; it
asks for confirmation on a terminal and needs --yes otherwise.
Swarm services (platform swarm) of gone owners are removed first, and a
swarm shutdownlab initialised is left once no live session holds a lease
on it. Images are kept.
With --context or --kubeconfig it also removes, on that cluster, the
namespaces platform kubernetes runs left (labelled shutdownlab=1) whose
owner is gone; without either it touches no cluster.
`

// stdin is where clean --all reads its confirmation; stdinIsTerminal tells
// whether a person is there to answer. Tests replace both.
var (
	stdin           io.Reader = os.Stdin
	stdinIsTerminal           = func() bool { return term.IsTerminal(int(os.Stdin.Fd())) }
)

func cmdClean(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newCommand("clean", cleanUsage)
	all := c.fs.Bool("all", false, "remove every object labelled shutdownlab=1, live runs' included (asks first)")
	yes := c.fs.Bool("yes", false, "with --all: do not ask (required when stdin is not a terminal)")
	var cl clusterFlags
	c.fs.StringVar(&cl.kubeconfig, "kubeconfig", "", "also clean this cluster's shutdownlab namespaces (kubeconfig; never written)")
	c.fs.StringVar(&cl.context, "context", "", "also clean this kubeconfig context's shutdownlab namespaces")
	pos, err := c.parse(args, stdout)
	if err != nil {
		return err
	}
	if err := noArgs("clean", pos); err != nil {
		return err
	}
	if *yes && !*all {
		return usagef("clean: --yes only goes with --all")
	}
	if *all && !*yes && !stdinIsTerminal() {
		return usagef("clean --all removes the containers of runs still going; stdin is not a terminal, so confirm with --yes")
	}
	eng, err := docker.New(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	if *all && !*yes {
		ok, err := confirmAll(ctx, eng, stdout)
		if err != nil || !ok {
			return err
		}
	}
	// Swarm services first: their overlay networks are removable only
	// once they are gone.
	srep, serr := swarm.New(eng).CleanOrphans(ctx)
	if s := srep.String(); s != "" {
		fmt.Fprintln(stdout, s)
	}
	rep, err := eng.CleanOrphans(ctx, docker.CleanOptions{All: *all})
	fmt.Fprintln(stdout, rep)
	var kerr error
	if cl.context != "" || cl.kubeconfig != "" {
		kerr = cleanNamespaces(ctx, eng, cl, *all, stdout)
	}
	return errors.Join(serr, err, kerr)
}

// confirmAll lists what --all would remove and asks y/N on the terminal.
func confirmAll(ctx context.Context, eng *docker.Engine, stdout io.Writer) (bool, error) {
	left, err := eng.Leftovers(ctx, nil)
	if err != nil {
		return false, err
	}
	if left.Empty() {
		return true, nil
	}
	fmt.Fprintf(stdout, "clean --all removes %s labelled shutdownlab, including those of runs still going:\n  %s\nRemove them? [y/N] ",
		left, strings.Join(append(left.Containers, left.Networks...), "\n  "))
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		fmt.Fprintln(stdout, "nothing removed")
		return false, nil
	}
	return true, nil
}
