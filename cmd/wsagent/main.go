// Command wsagent is shutdownlab's WebSocket load agent: it runs loadgen/ws
// against one target's event stream and writes JSON lines to stdout (a
// start line as the first client starts, then one ws_attempt line per
// connection attempt, one ws_close line per opened connection, one
// ws_client line per client when it stops); human messages go to stderr.
//
// Every flag has an environment fallback WSAGENT_<NAME> (upper case, '-' as
// '_'), e.g. WSAGENT_TARGET; a flag on the command line wins.
//
// -duration counts from the start line, -ramp (the span over which the
// clients' first attempts are spread) included: an action timed from the
// start can land while clients are still arriving (new handshakes reach a
// draining server) or after the ramp (a settled population). The first
// SIGTERM or SIGINT stops the load early: every open connection
// is closed with 1000 (bounded by -close-timeout), every client prints its
// totals, and the agent exits 0. Later signals are ignored.
//
// With -wait-ready PATH the agent first polls GET PATH on the target (a new
// connection per probe, not recorded) until it answers 200.
//
// Exit codes: 0 the run completed (whatever its outcomes), 1 the output
// could not be written, 2 bad flags, 3 the target never became ready.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/agentcmd"
	"github.com/shutdownlab/shutdownlab/loadgen/ws"
)

func main() { agentcmd.Main(run) }

// run is main without the process: it parses args, runs the load and
// returns the exit code. The first value on sig stops the load.
func run(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	c := agentcmd.New("wsagent", "WSAGENT", "usage: wsagent -target host:port [flags]", stderr)
	f := defineFlags(c)
	return c.Run(args, func() error {
		cfg, err := f.config(c)
		if err != nil {
			return err
		}
		nofile, err := checkNoFile(cfg.Clients)
		if err != nil {
			return err
		}
		ctx, cancel := c.StopOn(sig, fmt.Sprintf(" (closing every connection, up to %v)", cfg.CloseTimeout))
		defer cancel()
		if err := c.WaitReady(ctx, f.ready, *f.target, ""); err != nil {
			return err
		}
		sink := &ws.LineSink{W: stdout}
		sink.Start(time.Now().UnixNano())
		c.Logf("%d clients on %s, policy %s, ramp %v, open-file limit %d", cfg.Clients, cfg.URL, cfg.Policy.Kind, cfg.Ramp, nofile)
		if err := ws.Run(ctx, cfg, sink); err != nil {
			return agentcmd.Exit(agentcmd.ExitUsage, err)
		}
		if err := sink.Err(); err != nil {
			return fmt.Errorf("writing records: %w", err)
		}
		c.Logf("stopped")
		return nil
	})
}

// flags are the agent's flag values.
type flags struct {
	target, path, policy               *string
	clients, maxAttempts, dedupe, raw  *int
	overlap                            *int64
	seed                               *uint64
	resume, double                     *bool
	duration, ramp, base, capD, stable *time.Duration
	handshakeTimeout, closeTimeout     *time.Duration
	ready                              *agentcmd.Ready
}

// defineFlags defines the agent's flags on c.
func defineFlags(c *agentcmd.Command) *flags {
	fs := c.Flags
	return &flags{
		target:           fs.String("target", "", "target address host:port (required)"),
		path:             fs.String("path", "/events", "the stream's path on the target"),
		clients:          fs.Int("clients", 100, "number of long-lived clients"),
		policy:           fs.String("policy", string(ws.FullJitter), "reconnect policy: immediate, exponential or full-jitter"),
		base:             fs.Duration("base", 100*time.Millisecond, "exponential / full-jitter: base delay"),
		capD:             fs.Duration("cap", 3*time.Second, "exponential / full-jitter: delay cap"),
		stable:           fs.Duration("stable-after", 0, "a connection open this long resets the retry counter (0: every open does)"),
		double:           fs.Bool("double-schedule", false, "the double-schedule bug: an error end reschedules from both the error and the close handler"),
		resume:           fs.Bool("resume", false, "reconnect with ?after=<last delivered seq - overlap>"),
		overlap:          fs.Int64("resume-overlap", 0, "events a resume asks for again"),
		dedupe:           fs.Int("dedupe-size", 1024, "each client's event-id cache size (0: no deduplication)"),
		maxAttempts:      fs.Int("max-attempts", 1000, "bound on each client's connection attempts"),
		duration:         fs.Duration("duration", 10*time.Second, "how long the load runs, ramp included"),
		ramp:             fs.Duration("ramp", 0, "spread the clients' first attempts over this span (< duration)"),
		handshakeTimeout: fs.Duration("handshake-timeout", 5*time.Second, "bound on each handshake"),
		closeTimeout:     fs.Duration("close-timeout", 2*time.Second, "bound on a stopping client's closing handshake"),
		seed:             fs.Uint64("seed", 1, "seed of the clients' random delays"),
		raw:              fs.Int("raw-peers", 0, "the first N clients are raw peers that never answer a close frame (connect once)"),
		ready:            c.ReadyFlags("before the load, poll GET PATH on the target until it answers 200 (e.g. /readyz)"),
	}
}

// config builds and validates the load's configuration from the flags.
func (f *flags) config(c *agentcmd.Command) (ws.Config, error) {
	if *f.target == "" || strings.Contains(*f.target, "/") {
		return ws.Config{}, agentcmd.BadFlag("target", *f.target, "want host:port")
	}
	if !strings.HasPrefix(*f.path, "/") {
		return ws.Config{}, agentcmd.BadFlag("path", *f.path, "must start with /")
	}
	if err := c.Positive("clients", "max-attempts", "duration", "handshake-timeout", "close-timeout", "wait-timeout"); err != nil {
		return ws.Config{}, err
	}
	cfg := ws.Config{
		URL:     "ws://" + *f.target + *f.path,
		Clients: *f.clients,
		Policy: ws.Policy{Kind: ws.PolicyKind(*f.policy), Base: *f.base, Cap: *f.capD,
			StableAfter: *f.stable, DoubleSchedule: *f.double},
		Resume: *f.resume, ResumeOverlap: *f.overlap, DedupeSize: *f.dedupe,
		MaxAttempts: *f.maxAttempts, Duration: *f.duration, Ramp: *f.ramp,
		HandshakeTimeout: *f.handshakeTimeout, CloseTimeout: *f.closeTimeout, Seed: *f.seed,
		RawPeers: *f.raw,
	}
	if err := cfg.Validate(); err != nil {
		return cfg, agentcmd.BadFlag("config", "", err.Error())
	}
	return cfg, nil
}
