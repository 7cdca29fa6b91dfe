// Command shutdownlab measures what a service does to its clients when it is
// told to stop: it runs scenarios (target replicas in Docker, keep-alive load
// from a container on the same network, a signal or docker stop at a chosen
// moment), records every request's outcome, and writes reports.
//
// Usage:
//
//	shutdownlab list
//	shutdownlab run SCENARIO... [--runs N] [--out DIR] [--set key=value]...
//	shutdownlab reproduce [--runs 3] [--runtime node,go] [--only P1,P5] [--out DIR]
//	shutdownlab report DIR [--expect EXPR]... [--junit FILE]
//	shutdownlab gate NEW --baseline OLD [--ratio R] [--abs N] [--min-ms M]
//	shutdownlab images [--print target|loadagent]
//	shutdownlab clean
//
// Exit codes: 0 success; 1 an expectation failed or gate found a regression;
// 2 an invalid run, a harness failure or bad usage (2 wins over 1).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1 // an expectation failed or gate found a regression
	exitInvalid = 2 // a run could not be measured, the harness failed, or bad usage
)

// usageError is bad command-line input: exit 2 after printing usage hints.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

const usage = `shutdownlab — measure what a service does to its clients when it is told to stop

Usage:
  shutdownlab list                               list the scenario catalog
  shutdownlab run SCENARIO... [flags]            run scenarios (catalog names or .yaml paths)
  shutdownlab reproduce [flags]                  re-measure the published claims P1-P12 (~35 min per runtime)
  shutdownlab report DIR [--expect EXPR]...      rebuild report.md / CSV / plots from a saved result dir
  shutdownlab gate NEW --baseline OLD            compare two result dirs metric by metric
  shutdownlab images [--print target|loadagent]  build (or reuse) the project's images
  shutdownlab clean                              remove leftover containers and networks

Run 'shutdownlab COMMAND -h' for a command's flags.
`

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go interrupts(sigs, cancel, os.Stderr, func() { os.Exit(130) })
	os.Exit(Main(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// interrupts cancels the run on the first signal and calls exit on the
// second, so a stuck cleanup can always be abandoned.
func interrupts(sigs <-chan os.Signal, cancel func(), w io.Writer, exit func()) {
	<-sigs
	fmt.Fprintln(w, "\ninterrupted: stopping load and removing containers (again to quit at once)")
	cancel()
	<-sigs
	fmt.Fprintln(w, "interrupted twice: exiting now; run `shutdownlab clean` to remove leftovers")
	exit()
}

// Main runs one command and returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitInvalid
	}
	var err error
	code := exitOK
	switch args[0] {
	case "list":
		err = cmdList(args[1:], stdout)
	case "run":
		code, err = cmdRun(ctx, args[1:], stdout, stderr)
	case "reproduce":
		code, err = cmdReproduce(ctx, args[1:], stdout, stderr)
	case "report":
		code, err = cmdReport(args[1:], stdout)
	case "gate":
		code, err = cmdGate(args[1:], stdout)
	case "images":
		err = cmdImages(ctx, args[1:], stdout, stderr)
	case "clean":
		err = cmdClean(ctx, args[1:], stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		err = &usageError{fmt.Sprintf("unknown command %q", args[0])}
	}
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "shutdownlab: %v\n\n%s", err, usage)
		} else {
			fmt.Fprintf(stderr, "shutdownlab: %v\n", err)
		}
		return exitInvalid
	}
	return code
}
