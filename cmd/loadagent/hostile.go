package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/agentcmd"
	"github.com/shutdownlab/shutdownlab/loadgen"
)

// hostileFlags are the flags of -hostile KIND (loadgen.RunHostile): the
// request each attempt makes. -target, -host, -clients, -rate (attempts
// per second; 0: closed loop), -duration, -max-requests (attempts),
// -timeout (per attempt), -drain, -dial-timeout, -id-prefix and
// -wait-ready keep their meaning.
type hostileFlags struct {
	kind, method, path    *string
	bytesPerS             *float64
	bodyBytes, abortAfter *int
	hold                  *time.Duration
	reset                 *bool
}

func defineHostileFlags(c *agentcmd.Command) *hostileFlags {
	fs := c.Flags
	return &hostileFlags{
		kind:       fs.String("hostile", "", "hostile clients instead of the load: slow_headers, slow_body or abort (see -hostile-*)"),
		method:     fs.String("hostile-method", "POST", "hostile: the request's method"),
		path:       fs.String("hostile-path", "/slow?ms=0", "hostile: the request's target"),
		bytesPerS:  fs.Float64("hostile-bytes-per-s", 1, "hostile slow kinds: trickle rate in bytes per second"),
		bodyBytes:  fs.Int("hostile-body-bytes", 0, "hostile: the body's Content-Length (default 1000 for slow_body and abort, 0 for slow_headers)"),
		abortAfter: fs.Int("hostile-abort-after", 0, "hostile abort: body bytes sent before the close (default half the body)"),
		hold:       fs.Duration("hostile-hold", 0, "hostile abort: wait this long after the last byte before closing"),
		reset:      fs.Bool("hostile-reset", false, "hostile abort: close with a TCP RST instead of a FIN"),
	}
}

// load builds the hostile load from the flags (loadgen checks the values;
// its errors name the setting).
func (h *hostileFlags) load(f *flags) loadgen.HostileLoad {
	return loadgen.HostileLoad{
		Request: loadgen.HostileRequest{
			Kind: *h.kind, Target: *f.target, Host: *f.host, Method: *h.method, Path: *h.path,
			BodyBytes: *h.bodyBytes, Rate: *h.bytesPerS, AbortAfter: *h.abortAfter, Hold: *h.hold,
			Reset: *h.reset, Timeout: *f.timeout, DialTimeout: *f.dialTimeout,
		},
		Clients: *f.clients, Rate: *f.rate, Duration: *f.duration, MaxAttempts: *f.maxRequests,
		Drain: *f.drain, IDPrefix: *f.idPrefix,
	}
}

// runHostile is run's body for -hostile: wait for the target, run the
// hostile clients, print their records and summary.
func runHostile(c *agentcmd.Command, f *flags, h *hostileFlags, stdout io.Writer, sig <-chan os.Signal) error {
	if err := c.Positive("clients", "max-requests", "duration", "timeout", "drain", "dial-timeout", "wait-timeout"); err != nil {
		return err
	}
	if *f.rate < 0 {
		return agentcmd.BadFlag("rate", fmt.Sprint(*f.rate), "must be >= 0 (0: closed loop)")
	}
	l := h.load(f)
	if err := l.Validate(); err != nil {
		return agentcmd.BadFlag("hostile", *h.kind, err.Error())
	}
	ctx, cancel := c.StopOn(sig, fmt.Sprintf(" (drain up to %v)", l.Drain))
	defer cancel()
	if err := c.WaitReady(ctx, f.ready, l.Request.Target, l.Request.Host); err != nil {
		return err
	}
	c.Logf("hostile %s clients against %s, id prefix %q", l.Request.Kind, l.Request.Target, l.IDPrefix)
	sum, err := loadgen.RunHostile(ctx, l, loadgen.NewJSONEncoder(stdout))
	if err != nil {
		return err // the output (checked above: not the settings)
	}
	c.Logf("stopped by %s: started %d%s", sum.StoppedBy, sum.Started, classCounts(sum))
	return nil
}
