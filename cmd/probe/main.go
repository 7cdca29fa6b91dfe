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
	"context"
	"encoding/json"
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
	"github.com/shutdownlab/shutdownlab/probe"
	"github.com/shutdownlab/shutdownlab/record"
)

func main() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, sig))
}

// run is main without the process: it parses args, runs the probe and
// returns the exit code. The first value on sig stops the probe.
func run(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		kind        = fs.String("kind", "", "probe kind: idle (one finished request, then an idle socket) or inflight (one long request) (required)")
		target      = fs.String("target", "", "target address host:port (required)")
		host        = fs.String("host", "", "Host header (default: -target)")
		path        = fs.String("path", "", "request path (default: /slow?ms=<-ms>)")
		msFlag      = fs.Int("ms", -1, "the /slow duration when -path is not set; -1: 0 for idle, 4000 for inflight")
		id          = fs.String("id", probe.DefaultID, "X-Request-Id of the probe's request")
		timeout     = fs.Duration("timeout", probe.DefaultTimeout, "bound on writing the request and reading the whole response")
		maxWait     = fs.Duration("max-wait", probe.DefaultMaxWait, "bound on waiting for the server to close the socket, from the response's end")
		dialTimeout = fs.Duration("dial-timeout", probe.DefaultDialTimeout, "bound on establishing the connection")
		waitReady   = fs.String("wait-ready", "", "before probing, poll GET PATH on the target (new connections, not recorded) until it answers 200 (e.g. /readyz)")
		waitTimeout = fs.Duration("wait-timeout", 30*time.Second, "how long -wait-ready may take")
	)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: probe -kind idle|inflight -target host:port [flags]\n\nEvery flag also reads PROBE_<NAME> from the environment.\n\n")
		fs.PrintDefaults()
	}
	if err := envflag.Parse(fs, "PROBE", args, nil); err != nil {
		if errors.Is(err, envflag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "probe:", err)
		return 2
	}
	bad := func(name, value, why string) int {
		fmt.Fprintf(stderr, "probe: invalid -%s=%q: %s\n", name, value, why)
		return 2
	}
	if *msFlag < -1 {
		return bad("ms", strconv.Itoa(*msFlag), "must be >= 0 (or -1 for the kind's default)")
	}
	if *msFlag >= 0 && *path != "" {
		return bad("ms", strconv.Itoa(*msFlag), "conflicts with -path")
	}
	if *path == "" && *msFlag >= 0 {
		*path = probe.SlowPath(*msFlag)
	}
	cfg := probe.Config{Kind: probe.Kind(*kind), Target: *target, Host: *host, Path: *path, ID: *id,
		DialTimeout: *dialTimeout, Timeout: *timeout, MaxWait: *maxWait}
	// Zero means "default" to probe.Config; for flags a zero is an explicit value.
	for _, p := range []struct {
		name string
		v    time.Duration
	}{{"timeout", *timeout}, {"max-wait", *maxWait}, {"dial-timeout", *dialTimeout}, {"wait-timeout", *waitTimeout}} {
		if p.v <= 0 {
			return bad(p.name, p.v.String(), "must be > 0")
		}
	}
	cfg = cfg.WithDefaults()
	var ce *probe.ConfigError
	if err := cfg.Validate(); errors.As(err, &ce) {
		return bad(ce.Field, ce.Value, ce.Reason)
	}
	if *waitReady != "" && !strings.HasPrefix(*waitReady, "/") {
		return bad("wait-ready", *waitReady, "must be a path starting with /")
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case s := <-sig:
			fmt.Fprintf(stderr, "probe: %v: stopping\n", s)
			cancel()
		case <-ctx.Done():
		}
	}()
	if *waitReady != "" {
		t0 := time.Now()
		if err := loadgen.WaitReady(ctx, cfg.Target, cfg.Host, *waitReady, *waitTimeout); err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(stderr, "probe: stopped before %s was ready\n", cfg.Target)
				return 0
			}
			fmt.Fprintf(stderr, "probe: target %s not ready: %v\n", cfg.Target, err)
			return 3
		}
		fmt.Fprintf(stderr, "probe: %s ready after %v\n", cfg.Target, time.Since(t0).Round(time.Millisecond))
	}

	enc := json.NewEncoder(stdout)
	var outErr error
	fmt.Fprintf(stderr, "probe: %s probe of %s: GET %s\n", cfg.Kind, cfg.Target, cfg.Path)
	res, err := probe.Run(ctx, cfg, func(ns int64) {
		outErr = enc.Encode(record.Start{Type: "start", LoadStart: ns})
	})
	if err != nil { // validated above; kept for safety
		fmt.Fprintln(stderr, "probe:", err)
		return 2
	}
	if err := enc.Encode(res); err != nil || outErr != nil {
		fmt.Fprintln(stderr, "probe: writing output:", errors.Join(outErr, err))
		return 1
	}
	closed := res.Closed
	if closed == "" {
		closed = "not observed"
	}
	msg := fmt.Sprintf("probe: response %s %d conn %q; socket: %s", res.ResponseClass, res.Status, res.ConnHeader, closed)
	if res.SocketClosedNs != 0 && res.ResponseEndNs != 0 {
		msg += fmt.Sprintf(" %v after the response", time.Duration(res.SocketClosedNs-res.ResponseEndNs).Round(time.Millisecond))
	}
	if res.Error != "" {
		msg += " (" + res.Error + ")"
	}
	fmt.Fprintln(stderr, msg)
	return 0
}
