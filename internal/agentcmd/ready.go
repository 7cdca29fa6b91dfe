package agentcmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/loadgen"
)

// DefaultWaitTimeout is the default of -wait-timeout.
const DefaultWaitTimeout = 30 * time.Second

// Ready holds the -wait-ready and -wait-timeout flags: poll GET Path on
// the target until it answers 200, for at most Timeout, before the
// command's own work starts.
type Ready struct {
	// Path is the readiness path ("" = do not wait).
	Path string
	// Timeout bounds the wait.
	Timeout time.Duration
}

// ReadyFlags defines -wait-ready (with help text help) and -wait-timeout
// on the command's flags and returns where they are stored.
func (c *Command) ReadyFlags(help string) *Ready {
	r := &Ready{}
	c.Flags.StringVar(&r.Path, "wait-ready", "", help)
	c.Flags.DurationVar(&r.Timeout, "wait-timeout", DefaultWaitTimeout, "how long -wait-ready may take")
	return r
}

// WaitReady polls r.Path on target (Host header host) with
// loadgen.WaitReady when a path was given, and logs how long it took. A
// path that does not start with "/" is a BadFlag error; a target that is
// not ready in time (or ctx ending first) is an error with exit code
// ExitNotReady.
func (c *Command) WaitReady(ctx context.Context, r *Ready, target, host string) error {
	if r.Path == "" {
		return nil
	}
	if !strings.HasPrefix(r.Path, "/") {
		return BadFlag("wait-ready", r.Path, "must be a path starting with /")
	}
	t0 := time.Now()
	if err := loadgen.WaitReady(ctx, target, host, r.Path, r.Timeout); err != nil {
		return Exit(ExitNotReady, fmt.Errorf("target %s not ready: %v", target, err))
	}
	c.Logf("%s ready after %v", target, time.Since(t0).Round(time.Millisecond))
	return nil
}
