package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/internal/runplan"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Exit codes of every command. They are defined here once; the package doc,
// the usage text, README.md ("Exit codes") and docs/reliability.md quote
// them, and TestReliabilityDoc checks the latter against these constants.
const (
	// exitOK: success; every run valid, every expectation held, no
	// regression.
	exitOK = gate.ExitPass
	// exitFailed: an expectation failed or gate found a regression, on
	// valid runs only.
	exitFailed = gate.ExitFail
	// exitInvalid: the harness could not measure: an invalid or incomplete
	// run, a harness failure (Docker unreachable, build failed), or two
	// results that are not comparable. Wins over exitFailed.
	exitInvalid = gate.ExitHarness
	// exitUsage: bad usage or bad input, refused before anything started:
	// an unknown command or flag, a bad flag value, a scenario file or
	// expectation that does not check, a path or image that does not
	// exist or cannot be written. (EX_USAGE of sysexits.h.)
	exitUsage = runplan.ExitUsage
	// exitInterrupted: a second interrupt (SIGINT, SIGTERM, SIGHUP) quit
	// at once, without cleaning up (128 + SIGINT).
	exitInterrupted = 130
)

// exitCodesText is the exit code table of the usage text.
const exitCodesText = `Exit codes:
  0   success: every run valid, every expectation held, no regression
  1   an expectation failed, or gate found a regression
  2   could not measure: an invalid or incomplete run, a harness failure
      (Docker unreachable, build failed), or gate results not comparable
  64  bad usage or bad input, refused before anything started
  130 interrupted twice: quit without cleaning up (run 'shutdownlab clean')
`

// usageError is bad command-line usage or bad input found before anything
// started: exit 64, the message on stderr with a pointer to -h.
type usageError = runplan.UsageError

// usagef returns a usage error with a formatted message.
func usagef(format string, args ...any) error { return runplan.Usagef(format, args...) }

// errHelp is returned by command.parse after printing the usage for -h.
var errHelp = errors.New("help requested")

// command is one subcommand's flag set and usage text.
type command struct {
	fs    *flag.FlagSet
	usage string // printed before the flag defaults
	// aliases are deprecated flag names, each beside the flag it names
	// (alias).
	aliases []flagAlias
}

// flagAlias is a deprecated name of a flag.
type flagAlias struct{ old, new string }

// newCommand returns a command whose flag set prints nothing by itself:
// parse reports errors, and prints the usage only when asked (-h).
func newCommand(name, usage string) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &command{fs: fs, usage: usage}
}

// printUsage writes the usage text and the flag defaults to w.
func (c *command) printUsage(w io.Writer) {
	fmt.Fprint(w, c.usage)
	hasFlags := false
	c.fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nFlags:")
		c.fs.SetOutput(w)
		c.fs.PrintDefaults()
		c.fs.SetOutput(io.Discard)
	}
}

// parse parses flags that may come before, between or after positional
// arguments and returns the positional ones. -h / --help prints the usage
// to stdout and returns errHelp; a bad flag is a usage error.
func (c *command) parse(args []string, stdout io.Writer) ([]string, error) {
	var pos []string
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.printUsage(stdout)
				return nil, errHelp
			}
			return nil, usagef("%s: %v", c.fs.Name(), err)
		}
		args = c.fs.Args()
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

// alias registers old as a deprecated name of the flag new (registered
// already): it sets the same value; checkAliases warns of its use.
func (c *command) alias(old, new string) {
	c.fs.Var(c.fs.Lookup(new).Value, old, "deprecated: use --"+new)
	c.aliases = append(c.aliases, flagAlias{old, new})
}

// checkAliases writes one line to stderr per deprecated flag name given,
// naming the one to use, and refuses a flag given under both its names.
func (c *command) checkAliases(stderr io.Writer) error {
	for _, a := range c.aliases {
		switch {
		case c.isSet(a.old) && c.isSet(a.new):
			return usagef("--%s and --%s name the same flag: give only --%s (--%s is deprecated)", a.old, a.new, a.new, a.old)
		case c.isSet(a.old):
			fmt.Fprintf(stderr, "%s: --%s is deprecated: use --%s\n", c.fs.Name(), a.old, a.new)
		}
	}
	return nil
}

// isSet reports whether the flag name was given on the command line.
func (c *command) isSet(name string) bool {
	set := false
	c.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// noArgs is the usage error of a command that takes no arguments.
func noArgs(name string, pos []string) error {
	if len(pos) == 0 {
		return nil
	}
	return usagef("%s takes no arguments, got %q", name, scenarios.Shorten(strings.Join(pos, " ")))
}

// version describes this binary from its build information: the module
// version, the VCS revision and time (with "+dirty" for a modified tree)
// and the Go version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "shutdownlab (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(unknown)"
	}
	s := "shutdownlab " + v
	var rev, when, dirty string
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.time":
			when = kv.Value
		case "vcs.modified":
			if kv.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		s += " revision " + rev + dirty
		if when != "" {
			s += " (" + when + ")"
		}
	}
	return s + " " + bi.GoVersion
}
