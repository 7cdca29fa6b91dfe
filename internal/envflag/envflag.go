// Package envflag parses a command's flags with environment fallbacks:
// every flag -some-name also reads PREFIX_SOME_NAME, and a flag given on the
// command line wins. The container binaries (load agent, probe) use it so a
// flag can come from either place.
package envflag

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
)

// ErrHelp is returned when -h or -help was given; the caller exits 0.
var ErrHelp = flag.ErrHelp

// EnvName is the environment variable that backs flag name under prefix,
// e.g. EnvName("LOADAGENT", "max-requests") = "LOADAGENT_MAX_REQUESTS".
func EnvName(prefix, name string) string {
	return prefix + "_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// Parse sets every flag of fs from its environment variable when that is
// set (lookup is os.LookupEnv when nil), then parses args over them and
// refuses positional arguments. Errors name the variable or flag and value.
func Parse(fs *flag.FlagSet, prefix string, args []string, lookup func(string) (string, bool)) error {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		env := EnvName(prefix, f.Name)
		if v, ok := lookup(env); ok && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = fmt.Errorf("invalid %s=%q (flag -%s): %v", env, v, f.Name, err)
			}
		}
	})
	if envErr != nil {
		return envErr
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ErrHelp
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
