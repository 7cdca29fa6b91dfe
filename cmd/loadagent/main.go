// Command loadagent is shutdownlab's load agent: it runs loadgen against one
// target and writes JSON lines to stdout (a start line, one line per request,
// a summary line last); human messages go to stderr.
//
// Every flag has an environment fallback LOADAGENT_<NAME> (upper case, '-'
// as '_'), e.g. LOADAGENT_TARGET; a flag on the command line wins.
//
// The first SIGTERM or SIGINT stops the load: no new requests start,
// in-flight ones get up to -drain to finish, the rest end as timeout
// ("agent stopping"), the summary is written and the agent exits 0. Later
// signals are ignored: the drain bound already caps the wait.
//
// With -wait-ready PATH the agent first polls GET PATH on the target (a new
// connection per probe, not recorded) until it answers 200, so the agent
// can be started together with the target; the load starts, and the start
// line is printed, only then.
//
// With -hostile KIND (slow_headers, slow_body, abort) the agent runs hostile
// clients instead (loadgen.RunHostile, the -hostile-* flags): the same
// start, req and summary lines, every req line with hostile set.
//
// Exit codes: 0 the run completed (whatever its outcomes), 1 the output could
// not be written, 2 bad flags, 3 the target never became ready.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/agentcmd"
	"github.com/shutdownlab/shutdownlab/loadgen"
	"github.com/shutdownlab/shutdownlab/record"
)

func main() { agentcmd.Main(run) }

// flagOf maps loadgen.Config field names to flag names for error messages.
var flagOf = map[string]string{
	"Target": "target", "Host": "host", "Shape": "shape", "Clients": "clients",
	"Rate": "rate", "Workers": "workers", "MaxLateness": "max-lateness",
	"Duration": "duration", "MaxRequests": "max-requests", "Timeout": "timeout",
	"Drain": "drain", "Think": "think", "IDPrefix": "id-prefix", "Seed": "seed",
	"DialTimeout": "dial-timeout", "FailPause": "fail-pause", "Stagger": "stagger",
}

// run is main without the process: it parses args, runs the load and returns
// the exit code. The first value on sig stops the load.
func run(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	c := agentcmd.New("loadagent", "LOADAGENT", "usage: loadagent -target host:port [flags]", stderr)
	f := defineFlags(c)
	h := defineHostileFlags(c)
	return c.Run(args, func() error {
		if *h.kind != "" {
			return runHostile(c, f, h, stdout, sig)
		}
		cfg, err := f.config(c)
		if err != nil {
			return err
		}
		ctx, cancel := c.StopOn(sig, fmt.Sprintf(" (drain up to %v)", cfg.Drain))
		defer cancel()
		if err := c.WaitReady(ctx, f.ready, cfg.Target, cfg.Host); err != nil {
			return err
		}
		c.Logf("%s loop against %s, id prefix %q", cfg.Shape, cfg.Target, cfg.IDPrefix)
		sum, err := loadgen.Run(ctx, cfg, loadgen.NewJSONEncoder(stdout))
		if err != nil {
			return err
		}
		c.Logf("stopped by %s: started %d%s", sum.StoppedBy, sum.Started, classCounts(sum))
		return nil
	})
}

// classCounts lists the summary's non-zero class counts (" ok=12 reset=3").
func classCounts(sum record.Summary) string {
	var b strings.Builder
	for _, cl := range record.Classes {
		if n := sum.ByClass[cl]; n > 0 {
			fmt.Fprintf(&b, " %s=%d", cl, n)
		}
	}
	return b.String()
}

// flags are the agent's flag values.
type flags struct {
	target, host, shape, once, mix, idPrefix *string
	clients, workers, maxRequests            *int
	rate                                     *float64
	seed                                     *uint64
	startAt                                  *int64
	maxLate, duration, timeout, drain        *time.Duration
	think, failPause, dialTimeout, stagger   *time.Duration
	ready                                    *agentcmd.Ready
}

// defineFlags defines the agent's flags on c.
func defineFlags(c *agentcmd.Command) *flags {
	fs := c.Flags
	d := loadgen.Config{}.WithDefaults()
	return &flags{
		target:      fs.String("target", "", "target address host:port (required)"),
		host:        fs.String("host", "", "Host header (default: -target)"),
		shape:       fs.String("shape", string(loadgen.ShapeClosed), "load shape: closed or open"),
		clients:     fs.Int("clients", loadgen.DefaultClients, "closed loop: number of clients, one keep-alive connection each"),
		rate:        fs.Float64("rate", 0, "open loop: requests per second (required for -shape open)"),
		workers:     fs.Int("workers", 0, "open loop: worker pool size (default: -clients)"),
		maxLate:     fs.Duration("max-lateness", d.MaxLateness, "open loop: a slot later than this is recorded as not_sent"),
		duration:    fs.Duration("duration", d.Duration, "run duration bound"),
		maxRequests: fs.Int("max-requests", d.MaxRequests, "run count bound (requests started + not_sent)"),
		timeout:     fs.Duration("timeout", d.Timeout, "per-request timeout (dial + write + read)"),
		drain:       fs.Duration("drain", d.Drain, "after the load stops, how long in-flight requests may finish"),
		think:       fs.Duration("think", 0, "closed loop: pause between a client's requests"),
		failPause:   fs.Duration("fail-pause", 0, "closed loop: pause after a request that did not end ok (it is still recorded, never retried)"),
		dialTimeout: fs.Duration("dial-timeout", d.DialTimeout, "bound on establishing a connection (within -timeout); a failed connect is refused"),
		stagger:     fs.Duration("stagger", 0, "closed loop: spread the clients' first requests evenly over this span (one request period unlocks them)"),
		once:        fs.String("once", "", "one-off requests at load start + offset: 'METHOD PATH @OFFSET' entries separated by ';'"),
		ready:       c.ReadyFlags("before the load, poll GET PATH on the target until it answers 200 (e.g. /readyz)"),
		mix:         fs.String("mix", "GET / 1", "request mix: 'METHOD PATH [WEIGHT [BODYBYTES]]' entries separated by ';'"),
		idPrefix:    fs.String("id-prefix", "", "X-Request-Id prefix, ids are <prefix>-<seq> (default: 8 random hex digits)"),
		seed:        fs.Uint64("seed", loadgen.DefaultSeed, "seed of the request-mix RNG"),
		startAt:     fs.Int64("start-at", 0, "wait until this wall-clock time (Unix ns) before starting load; 0: now"),
	}
}

// config builds and validates the load's configuration from the flags; its
// errors name the flag (agentcmd.BadFlag).
func (f *flags) config(c *agentcmd.Command) (loadgen.Config, error) {
	entries, err := loadgen.ParseMix(*f.mix)
	if err != nil {
		return loadgen.Config{}, agentcmd.BadFlag("mix", *f.mix, err.Error())
	}
	onceReqs, err := loadgen.ParseOnce(*f.once)
	if err != nil {
		return loadgen.Config{}, agentcmd.BadFlag("once", *f.once, err.Error())
	}
	cfg := loadgen.Config{
		Target: *f.target, Host: *f.host, Shape: loadgen.Shape(*f.shape), Clients: *f.clients,
		Rate: *f.rate, Workers: *f.workers, MaxLateness: *f.maxLate, Duration: *f.duration,
		MaxRequests: *f.maxRequests, Timeout: *f.timeout, Drain: *f.drain, Think: *f.think,
		DialTimeout: *f.dialTimeout, FailPause: *f.failPause, Stagger: *f.stagger, Once: onceReqs,
		Mix: entries, IDPrefix: *f.idPrefix, Seed: *f.seed,
	}
	if *f.startAt != 0 {
		t := time.Unix(0, *f.startAt)
		if time.Until(t) > time.Hour {
			return cfg, agentcmd.BadFlag("start-at", strconv.FormatInt(*f.startAt, 10), "more than one hour in the future")
		}
		cfg.StartAt = t
	}
	// Zero means "default" to loadgen; for flags a zero is an explicit value.
	if err := c.Positive("clients", "max-requests", "duration", "timeout", "drain", "max-lateness", "dial-timeout", "wait-timeout"); err != nil {
		return cfg, err
	}
	cfg = cfg.WithDefaults()
	var ve *loadgen.ValidationError
	if err := cfg.Validate(); errors.As(err, &ve) {
		name := flagOf[ve.Field]
		if name == "" {
			name = "mix"
		}
		return cfg, agentcmd.BadFlag(name, ve.Value, ve.Reason)
	}
	return cfg, nil
}
