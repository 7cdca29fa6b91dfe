// Command probe is shutdownlab's raw-socket probe: it opens one keep-alive
// connection to a target, sends one GET, and times what the server does to
// that socket around a stop signal (see package probe). It runs as a
// container on the scenario network, like the load agent, and writes JSON
// lines to stdout; human messages go to stderr.
//
// Output: a record.Start line {"type":"start","load_start_ns":N} as soon as
// the probe's load start has passed (idle: when the response ended and the
// idle period began; inflight: when the request was written), so the runner
// can time its action from it; then, last, one {"type":"probe",...} line
// (probe.Result). No start line is printed when that moment never came (the
// connect or, for idle, the response failed); the probe line says why.
//
// Every flag has an environment fallback PROBE_<NAME> (upper case, '-' as
// '_'), e.g. PROBE_TARGET; a flag on the command line wins.
//
// The first SIGTERM or SIGINT stops the probe: the probe line is written
// with what was seen so far (closed "stopped" if the socket was still open)
// and the probe exits 0. Stopped while -wait-ready polls, it exits 0 with no
// output.
//
// Exit codes: 0 the probe ran (whatever the server did), 1 the output could
// not be written, 2 bad flags, 3 the target never became ready.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/agentcmd"
	"github.com/shutdownlab/shutdownlab/probe"
	"github.com/shutdownlab/shutdownlab/record"
)

func main() { agentcmd.Main(run) }

// run is main without the process: it parses args, runs the probe and
// returns the exit code. The first value on sig stops the probe.
func run(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	c := agentcmd.New("probe", "PROBE", "usage: probe -kind idle|inflight -target host:port [flags]", stderr)
	f := defineFlags(c)
	return c.Run(args, func() error {
		cfg, err := f.config(c)
		if err != nil {
			return err
		}
		ctx, cancel := c.StopOn(sig, "")
		defer cancel()
		if err := c.WaitReady(ctx, f.ready, cfg.Target, cfg.Host); err != nil {
			if ctx.Err() != nil { // stopped before the probe began: nothing to report
				return agentcmd.Exit(agentcmd.ExitOK, fmt.Errorf("stopped before %s was ready", cfg.Target))
			}
			return err
		}
		c.Logf("%s probe of %s: GET %s", cfg.Kind, cfg.Target, cfg.Path)
		enc := json.NewEncoder(stdout)
		var outErr error
		res, err := probe.Run(ctx, cfg, func(ns int64) {
			outErr = enc.Encode(record.Start{Type: record.TypeStart, LoadStart: ns})
		})
		if err != nil { // validated above; kept for safety
			return agentcmd.Exit(agentcmd.ExitUsage, err)
		}
		if err := enc.Encode(res); err != nil || outErr != nil {
			return fmt.Errorf("writing output: %w", errors.Join(outErr, err))
		}
		c.Logf("%s", describe(res))
		return nil
	})
}

// flags are the probe's flag values.
type flags struct {
	kind, target, host, path, id  *string
	ms                            *int
	timeout, maxWait, dialTimeout *time.Duration
	ready                         *agentcmd.Ready
}

// defineFlags defines the probe's flags on c.
func defineFlags(c *agentcmd.Command) *flags {
	fs := c.Flags
	return &flags{
		kind:        fs.String("kind", "", "probe kind: idle (one finished request, then an idle socket) or inflight (one long request) (required)"),
		target:      fs.String("target", "", "target address host:port (required)"),
		host:        fs.String("host", "", "Host header (default: -target)"),
		path:        fs.String("path", "", "request path (default: /slow?ms=<-ms>)"),
		ms:          fs.Int("ms", -1, "the /slow duration when -path is not set; -1: 0 for idle, 4000 for inflight"),
		id:          fs.String("id", probe.DefaultID, "X-Request-Id of the probe's request"),
		timeout:     fs.Duration("timeout", probe.DefaultTimeout, "bound on writing the request and reading the whole response"),
		maxWait:     fs.Duration("max-wait", probe.DefaultMaxWait, "bound on waiting for the server to close the socket, from the response's end"),
		dialTimeout: fs.Duration("dial-timeout", probe.DefaultDialTimeout, "bound on establishing the connection"),
		ready:       c.ReadyFlags("before probing, poll GET PATH on the target (new connections, not recorded) until it answers 200 (e.g. /readyz)"),
	}
}

// config builds and validates the probe's configuration from the flags;
// its errors name the flag (agentcmd.BadFlag).
func (f *flags) config(c *agentcmd.Command) (probe.Config, error) {
	path := *f.path
	switch {
	case *f.ms < -1:
		return probe.Config{}, agentcmd.BadFlag("ms", strconv.Itoa(*f.ms), "must be >= 0 (or -1 for the kind's default)")
	case *f.ms >= 0 && path != "":
		return probe.Config{}, agentcmd.BadFlag("ms", strconv.Itoa(*f.ms), "conflicts with -path")
	case *f.ms >= 0:
		path = probe.SlowPath(*f.ms)
	}
	cfg := probe.Config{Kind: probe.Kind(*f.kind), Target: *f.target, Host: *f.host, Path: path, ID: *f.id,
		DialTimeout: *f.dialTimeout, Timeout: *f.timeout, MaxWait: *f.maxWait}
	// Zero means "default" to probe.Config; for flags a zero is an explicit value.
	if err := c.Positive("timeout", "max-wait", "dial-timeout", "wait-timeout"); err != nil {
		return cfg, err
	}
	cfg = cfg.WithDefaults()
	var ce *probe.ConfigError
	if err := cfg.Validate(); errors.As(err, &ce) {
		return cfg, agentcmd.BadFlag(ce.Field, ce.Value, ce.Reason)
	}
	return cfg, nil
}

// describe says in one line what the probe saw.
func describe(res probe.Result) string {
	closed := res.Closed
	if closed == "" {
		closed = "not observed"
	}
	msg := fmt.Sprintf("response %s %d conn %q; socket: %s", res.ResponseClass, res.Status, res.ConnHeader, closed)
	if res.SocketClosedNs != 0 && res.ResponseEndNs != 0 {
		msg += fmt.Sprintf(" %v after the response", time.Duration(res.SocketClosedNs-res.ResponseEndNs).Round(time.Millisecond))
	}
	if res.Error != "" {
		msg += " (" + res.Error + ")"
	}
	return msg
}
