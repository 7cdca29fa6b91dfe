// Command shutdownlab measures what a service does to its clients when it is
// told to stop: it runs scenarios (target replicas in Docker, keep-alive load
// from a container on the same network, a signal or docker stop at a chosen
// moment), records every request's outcome, and writes reports.
//
// Usage:
//
//	shutdownlab list
//	shutdownlab run SCENARIO... [--runs N] [--out DIR] [--set key=value]...
//	shutdownlab check IMAGE [--ready-path P] [--path P] [--grace-period 10s] [--expect EXPR]...
//	shutdownlab reproduce [--runs 3] [--runtime node,go] [--only P1,P5] [--out DIR]
//	shutdownlab report DIR [--expect EXPR]... [--junit FILE]
//	shutdownlab gate NEW --baseline OLD [--ratio R] [--abs N] [--min-ms M]
//	shutdownlab images [--print target|loadagent|caddy|postgres|fixture-NAME]
//	shutdownlab clean [--all [--yes]]
//	shutdownlab version
//
// -h or --help, at the top level or after a command, prints the usage to
// stdout and exits 0. Errors go to stderr.
//
// Exit codes (defined once, in cli.go):
//
//	0   success: every run valid, every expectation held, no regression
//	1   an expectation failed, or gate found a regression (valid runs only)
//	2   could not measure: an invalid or incomplete run, a harness failure
//	    (Docker unreachable, build failed), or gate results not comparable;
//	    2 wins over 1
//	64  bad usage or bad input (unknown command or flag, bad value, a
//	    scenario or expectation that does not check, a missing image, an
//	    unwritable path), refused before anything started
//	130 a second interrupt quit at once, without cleaning up
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/shutdownlab/shutdownlab/capabilities"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

const usage = `shutdownlab — measure what a service does to its clients when it is told to stop

Usage:
  shutdownlab list                               list the scenario catalog
  shutdownlab check IMAGE [flags]                measure your own image's shutdown and say what is wrong
  shutdownlab run SCENARIO... [flags]            run scenarios (catalog names or .yaml paths)
  shutdownlab reproduce [flags]                  re-measure the published claims P1-P12 (47 min for both runtimes at 3 runs), W1-W6, J1-J5 and C1-C4
  shutdownlab report DIR [--expect EXPR]...      rebuild report.md / CSV / plots from a saved result dir
  shutdownlab gate NEW --baseline OLD            compare two result dirs metric by metric
  shutdownlab images [--print NAME]              build (or reuse) the project's images (NAME: target, loadagent, caddy, postgres, fixture-NAME)
  shutdownlab clean [--all [--yes]]              remove orphaned containers and networks
  shutdownlab version                            print the version (also --version)

Run 'shutdownlab COMMAND -h' for a command's flags.

` + exitCodesText

// shutdownSignals stop a run: the first cancels it (load stops, containers
// are removed), the second quits at once.
var shutdownSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	watchSignals(cancel, os.Stderr, func() { os.Exit(exitInterrupted) })
	os.Exit(Main(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// watchSignals calls cancel on the first of shutdownSignals and exit on the
// second. The returned function stops watching.
func watchSignals(cancel func(), w io.Writer, exit func()) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, shutdownSignals...)
	go interrupts(sigs, cancel, w, exit)
	return func() { signal.Stop(sigs) }
}

// interrupts cancels the run on the first signal and calls exit on the
// second, so a stuck cleanup can always be abandoned.
func interrupts(sigs <-chan os.Signal, cancel func(), w io.Writer, exit func()) {
	s := <-sigs
	fmt.Fprintf(w, "\n%v: stopping load and removing containers (again to quit at once)\n", s)
	cancel()
	s = <-sigs
	fmt.Fprintf(w, "%v again: exiting now; run `shutdownlab clean` to remove leftovers\n", s)
	exit()
}

// Main runs one command and returns the process exit code. It first
// installs the report's capabilities (the one list, package
// capabilities), which every command that reads or writes a report needs.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	capabilities.Install()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	code := exitOK
	switch args[0] {
	case "list":
		err = cmdList(args[1:], stdout)
	case "run":
		code, err = cmdRun(ctx, args[1:], stdout, stderr)
	case "check":
		if isManifestCheck(args[1:]) {
			code, err = cmdCheckManifest(ctx, args[1:], stdout, stderr)
		} else {
			code, err = cmdCheck(ctx, args[1:], stdout, stderr)
		}
	case "reproduce":
		code, err = cmdReproduce(ctx, args[1:], stdout, stderr)
	case "report":
		code, err = cmdReport(args[1:], stdout, stderr)
	case "gate":
		code, err = cmdGate(args[1:], stdout, stderr)
	case "images":
		err = cmdImages(ctx, args[1:], stdout, stderr)
	case "clean":
		err = cmdClean(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, version())
		return exitOK
	case "help", "-h", "--help", "-help":
		if len(args) > 1 && args[1] != "help" && args[0] == "help" {
			return Main(ctx, []string{args[1], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		err = usagef("unknown command %q", scenarios.Shorten(args[0]))
	}
	return exitCode(code, err, stderr)
}

// exitCode prints err (if any) to stderr and maps it to the exit code: 0
// for -h, exitUsage for a usage error, exitInvalid for any other error.
func exitCode(code int, err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil:
		return code
	case errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "shutdownlab: %v\nRun 'shutdownlab -h' or 'shutdownlab COMMAND -h' for usage.\n", err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "shutdownlab: %v\n", err)
	return exitInvalid
}
