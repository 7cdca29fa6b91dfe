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
// Exit codes: 0 the run completed (whatever its outcomes), 1 the output could
// not be written, 2 bad flags, 3 the target never became ready.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/envflag"
	"github.com/shutdownlab/shutdownlab/loadgen"
	"github.com/shutdownlab/shutdownlab/record"
)

func main() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, sig))
}

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
	fs := flag.NewFlagSet("loadagent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	d := loadgen.Config{}.WithDefaults()
	var (
		target      = fs.String("target", "", "target address host:port (required)")
		host        = fs.String("host", "", "Host header (default: -target)")
		shape       = fs.String("shape", string(loadgen.ShapeClosed), "load shape: closed or open")
		clients     = fs.Int("clients", loadgen.DefaultClients, "closed loop: number of clients, one keep-alive connection each")
		rate        = fs.Float64("rate", 0, "open loop: requests per second (required for -shape open)")
		workers     = fs.Int("workers", 0, "open loop: worker pool size (default: -clients)")
		maxLate     = fs.Duration("max-lateness", d.MaxLateness, "open loop: a slot later than this is recorded as not_sent")
		duration    = fs.Duration("duration", d.Duration, "run duration bound")
		maxRequests = fs.Int("max-requests", d.MaxRequests, "run count bound (requests started + not_sent)")
		timeout     = fs.Duration("timeout", d.Timeout, "per-request timeout (dial + write + read)")
		drain       = fs.Duration("drain", d.Drain, "after the load stops, how long in-flight requests may finish")
		think       = fs.Duration("think", 0, "closed loop: pause between a client's requests")
		failPause   = fs.Duration("fail-pause", 0, "closed loop: pause after a request that did not end ok (it is still recorded, never retried)")
		dialTimeout = fs.Duration("dial-timeout", d.DialTimeout, "bound on establishing a connection (within -timeout); a failed connect is refused")
		stagger     = fs.Duration("stagger", 0, "closed loop: spread the clients' first requests evenly over this span (one request period unlocks them)")
		once        = fs.String("once", "", "one-off requests at load start + offset: 'METHOD PATH @OFFSET' entries separated by ';'")
		waitReady   = fs.String("wait-ready", "", "before the load, poll GET PATH on the target until it answers 200 (e.g. /readyz)")
		waitTimeout = fs.Duration("wait-timeout", 30*time.Second, "how long -wait-ready may take")
		mix         = fs.String("mix", "GET / 1", "request mix: 'METHOD PATH [WEIGHT [BODYBYTES]]' entries separated by ';'")
		idPrefix    = fs.String("id-prefix", "", "X-Request-Id prefix, ids are <prefix>-<seq> (default: 8 random hex digits)")
		seed        = fs.Uint64("seed", loadgen.DefaultSeed, "seed of the request-mix RNG")
		startAt     = fs.Int64("start-at", 0, "wait until this wall-clock time (Unix ns) before starting load; 0: now")
	)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: loadagent -target host:port [flags]\n\nEvery flag also reads LOADAGENT_<NAME> from the environment.\n\n")
		fs.PrintDefaults()
	}
	if err := envflag.Parse(fs, "LOADAGENT", args, nil); err != nil {
		if errors.Is(err, envflag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "loadagent:", err)
		return 2
	}
	bad := func(name, value, why string) int {
		fmt.Fprintf(stderr, "loadagent: invalid -%s=%q: %s\n", name, value, why)
		return 2
	}
	entries, err := loadgen.ParseMix(*mix)
	if err != nil {
		return bad("mix", *mix, err.Error())
	}
	onceReqs, err := loadgen.ParseOnce(*once)
	if err != nil {
		return bad("once", *once, err.Error())
	}
	cfg := loadgen.Config{
		Target: *target, Host: *host, Shape: loadgen.Shape(*shape), Clients: *clients,
		Rate: *rate, Workers: *workers, MaxLateness: *maxLate, Duration: *duration,
		MaxRequests: *maxRequests, Timeout: *timeout, Drain: *drain, Think: *think,
		DialTimeout: *dialTimeout, FailPause: *failPause, Stagger: *stagger, Once: onceReqs,
		Mix: entries, IDPrefix: *idPrefix, Seed: *seed,
	}
	if *startAt != 0 {
		t := time.Unix(0, *startAt)
		if time.Until(t) > time.Hour {
			return bad("start-at", strconv.FormatInt(*startAt, 10), "more than one hour in the future")
		}
		cfg.StartAt = t
	}
	// Zero means "default" to loadgen; for flags a zero is an explicit value.
	for _, p := range []struct {
		name string
		v    int64
	}{{"clients", int64(*clients)}, {"max-requests", int64(*maxRequests)}, {"duration", int64(*duration)},
		{"timeout", int64(*timeout)}, {"drain", int64(*drain)}, {"max-lateness", int64(*maxLate)},
		{"dial-timeout", int64(*dialTimeout)}, {"wait-timeout", int64(*waitTimeout)}} {
		if p.v <= 0 {
			return bad(p.name, fs.Lookup(p.name).Value.String(), "must be > 0")
		}
	}
	cfg = cfg.WithDefaults()
	var ve *loadgen.ValidationError
	if err := cfg.Validate(); errors.As(err, &ve) {
		name := flagOf[ve.Field]
		if name == "" {
			name = "mix"
		}
		return bad(name, ve.Value, ve.Reason)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case s := <-sig:
			fmt.Fprintf(stderr, "loadagent: %v: stopping (drain up to %v)\n", s, cfg.Drain)
			cancel()
		case <-ctx.Done():
		}
	}()
	if *waitReady != "" {
		if !strings.HasPrefix(*waitReady, "/") {
			return bad("wait-ready", *waitReady, "must be a path starting with /")
		}
		t0 := time.Now()
		if err := loadgen.WaitReady(ctx, cfg.Target, cfg.Host, *waitReady, *waitTimeout); err != nil {
			fmt.Fprintf(stderr, "loadagent: target %s not ready: %v\n", cfg.Target, err)
			return 3
		}
		fmt.Fprintf(stderr, "loadagent: %s ready after %v\n", cfg.Target, time.Since(t0).Round(time.Millisecond))
	}
	fmt.Fprintf(stderr, "loadagent: %s loop against %s, id prefix %q\n", cfg.Shape, cfg.Target, cfg.IDPrefix)
	sum, err := loadgen.Run(ctx, cfg, loadgen.NewJSONEncoder(stdout))
	if err != nil {
		fmt.Fprintln(stderr, "loadagent:", err)
		return 1
	}
	fmt.Fprintf(stderr, "loadagent: stopped by %s: started %d", sum.StoppedBy, sum.Started)
	for _, c := range record.Classes {
		if n := sum.ByClass[c]; n > 0 {
			fmt.Fprintf(stderr, " %s=%d", c, n)
		}
	}
	fmt.Fprintln(stderr)
	return 0
}
