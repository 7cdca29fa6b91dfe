// Package agentcmd is the skeleton the container commands share (the load
// agent, cmd/loadagent, and the probe, cmd/probe): main itself (Main:
// SIGTERM and SIGINT to the command, its exit code to os.Exit), flags with
// PREFIX_NAME environment fallbacks (internal/envflag) and the usage text,
// the first stop signal as a cancelled context, the -wait-ready poll, and
// the exit codes, so that each command's run says only what is its own.
//
// A command's body returns an error; Run prints it on stderr as
// "NAME: error" and turns it into the exit code: a *FlagError (BadFlag) is
// ExitUsage, an error made by Exit carries its own code, any other error is
// ExitOutput.
package agentcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/envflag"
)

// The exit codes of the agent commands.
const (
	// ExitOK: the command ran, whatever the target did.
	ExitOK = 0
	// ExitOutput: the output could not be written.
	ExitOutput = 1
	// ExitUsage: bad flags or environment values.
	ExitUsage = 2
	// ExitNotReady: the target never became ready (-wait-ready).
	ExitNotReady = 3
)

// Main is an agent command's main: it calls run with the process's
// arguments, stdout and stderr, and a channel that receives SIGTERM and
// SIGINT, then exits with the code run returns. run is the command
// without the process, so tests call it directly.
func Main(run func(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, sig))
}

// Command is one agent command: its name (the prefix of its stderr
// messages), its flags and where its messages go.
type Command struct {
	// Name prefixes every message, e.g. "loadagent".
	Name string
	// Flags are the command's flags; define them before Run.
	Flags *flag.FlagSet
	// Stderr receives the messages and the usage text.
	Stderr io.Writer

	envPrefix string
}

// New returns the command name whose flags fall back to the environment
// variables envPrefix_NAME; usage is the first line of its -h text.
func New(name, envPrefix, usage string, stderr io.Writer) *Command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s\n\nEvery flag also reads %s_<NAME> from the environment.\n\n", usage, envPrefix)
		fs.PrintDefaults()
	}
	return &Command{Name: name, Flags: fs, Stderr: stderr, envPrefix: envPrefix}
}

// Run parses args over the environment fallbacks and, when they parse,
// runs body; it returns the exit code (see the package doc). -h prints the
// usage and returns ExitOK without running body.
func (c *Command) Run(args []string, body func() error) int {
	if err := envflag.Parse(c.Flags, c.envPrefix, args, nil); err != nil {
		if errors.Is(err, envflag.ErrHelp) {
			return ExitOK
		}
		c.Logf("%v", err)
		return ExitUsage
	}
	err := body()
	if err == nil {
		return ExitOK
	}
	c.Logf("%v", err)
	var fe *FlagError
	var ee *exitError
	switch {
	case errors.As(err, &fe):
		return ExitUsage
	case errors.As(err, &ee):
		return ee.code
	}
	return ExitOutput
}

// Logf prints one message on stderr, prefixed with the command's name.
func (c *Command) Logf(format string, args ...any) {
	fmt.Fprintf(c.Stderr, "%s: %s\n", c.Name, fmt.Sprintf(format, args...))
}

// FlagError is an invalid flag value; Run exits ExitUsage.
type FlagError struct {
	Flag, Value, Why string
}

// Error says which flag, its value and what is wrong with it.
func (e *FlagError) Error() string {
	return fmt.Sprintf("invalid -%s=%q: %s", e.Flag, e.Value, e.Why)
}

// BadFlag returns the error for flag name's value: Run exits ExitUsage.
func BadFlag(name, value, why string) error {
	return &FlagError{Flag: name, Value: value, Why: why}
}

// exitError is an error that sets the exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Exit returns err such that Run prints it and exits with code (ExitOK
// too: a message, and no failure).
func Exit(code int, err error) error {
	return &exitError{code: code, err: err}
}

// Positive returns a BadFlag error for the first of the named flags whose
// value is not > 0, nil when all are. A zero means "the default" to the
// libraries; given as a flag, it is a mistake. The flags must be ints,
// int64s, uint64s, float64s or durations.
func (c *Command) Positive(names ...string) error {
	for _, n := range names {
		f := c.Flags.Lookup(n)
		var ok bool
		switch v := f.Value.(flag.Getter).Get().(type) {
		case int:
			ok = v > 0
		case int64:
			ok = v > 0
		case uint64:
			ok = v > 0
		case float64:
			ok = v > 0
		case time.Duration:
			ok = v > 0
		default:
			panic(fmt.Sprintf("agentcmd: flag -%s is not a number", n))
		}
		if !ok {
			return BadFlag(n, f.Value.String(), "must be > 0")
		}
	}
	return nil
}

// StopOn returns a context that is cancelled by the first value on sig
// (logged as "SIGNAL: stopping" followed by what) or by calling cancel.
// Later values are not read: the command's own bounds cap the wait.
func (c *Command) StopOn(sig <-chan os.Signal, what string) (ctx context.Context, cancel context.CancelFunc) {
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		select {
		case s := <-sig:
			c.Logf("%v: stopping%s", s, what)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
