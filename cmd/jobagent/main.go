// Command jobagent is shutdownlab's job producer (load.kind jobs, issue
// 14): it inserts River jobs (package jobs: N steps of step_ms) into the
// run's PostgreSQL service, optionally drives a closed loop of GET /db
// requests at the target beside them (loadgen), waits until every job it
// inserted is finalized, and writes JSON lines to stdout: a start line
// when the load begins (loadgen's own with -http-clients > 0), loadgen's
// req and summary lines, and one jobs line last (record.JobsLine: the ids
// inserted, when, and whether every job settled). Human messages go to
// stderr.
//
// Every flag has an environment fallback JOBAGENT_<NAME> (upper case, '-'
// as '_'), e.g. JOBAGENT_DSN; a flag on the command line wins.
//
// With -rate 0 the jobs go in as one batch (River's InsertMany) at load
// start; with -rate R one at a time, R per second from load start.
// -duration counts from the start line and bounds everything: inserting,
// waiting for the jobs to settle (the database is polled every -poll), and
// the HTTP load. The first SIGTERM or SIGINT ends the load early: no
// further insert or poll, the HTTP load drains (up to -drain), the jobs
// line is written, and the agent exits 0. Later signals are ignored.
//
// With -wait-ready PATH the agent first polls GET PATH on -http-target
// until it answers 200.
//
// Exit codes: 0 the run completed (whatever became of the jobs), 1 the
// output could not be written, 2 bad flags, 3 the target never became
// ready, 4 the database could not be reached or refused an insert (the
// jobs line says so).
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/agentcmd"
	"github.com/shutdownlab/shutdownlab/jobs"
	"github.com/shutdownlab/shutdownlab/loadgen"
)

func main() { agentcmd.Main(run) }

// exitDatabase is the exit code when the database failed the producer.
const exitDatabase = 4

// run is main without the process: it parses args, produces the load and
// returns the exit code. The first value on sig stops the load.
func run(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	c := agentcmd.New("jobagent", "JOBAGENT", "usage: jobagent -dsn URL -count N [flags]", stderr)
	f := defineFlags(c)
	return c.Run(args, func() error {
		cfg, err := f.config(c)
		if err != nil {
			return err
		}
		ctx, cancel := c.StopOn(sig, " (no further insert; the jobs line follows)")
		defer cancel()
		if f.ready.Path != "" && cfg.HTTPTarget == "" {
			return agentcmd.BadFlag("wait-ready", f.ready.Path, "needs -http-target")
		}
		if err := c.WaitReady(ctx, f.ready, cfg.HTTPTarget, ""); err != nil {
			return err
		}
		p := &producer{cfg: cfg, out: stdout, logf: c.Logf}
		line, err := p.run(ctx)
		if werr := p.writeLine(line); werr != nil {
			return fmt.Errorf("writing records: %w", werr)
		}
		if err != nil {
			return agentcmd.Exit(exitDatabase, err)
		}
		c.Logf("done: %d jobs inserted, settled %v", len(line.IDs), line.Settled)
		return nil
	})
}

// flags are the agent's flag values.
type flags struct {
	dsn, httpTarget, idPrefix                     *string
	count, steps, stepMS, clients, httpMS         *int
	rate                                          *float64
	idempotent                                    *bool
	duration, timeout, drain, poll, quiet, connMx *time.Duration
	ready                                         *agentcmd.Ready
}

// defineFlags defines the agent's flags on c.
func defineFlags(c *agentcmd.Command) *flags {
	fs := c.Flags
	return &flags{
		dsn:        fs.String("dsn", "", "PostgreSQL connection string of the queue (required)"),
		count:      fs.Int("count", 0, "number of jobs to insert (required)"),
		rate:       fs.Float64("rate", 0, "jobs per second from load start (0: one batch at load start)"),
		steps:      fs.Int("steps", 1, "steps per job"),
		stepMS:     fs.Int("step-ms", 1000, "each step's duration in milliseconds"),
		idempotent: fs.Bool("idempotent", false, "idempotent steps (effects unique per job and step)"),
		duration:   fs.Duration("duration", 10*time.Second, "bound on inserting, waiting for the jobs to settle and the HTTP load, from the start line"),
		poll:       fs.Duration("poll", 100*time.Millisecond, "how often the database is asked whether every job settled"),
		quiet:      fs.Duration("quiet", 0, "stop waiting when no job is queued and nothing moved (no state change, no step applied, no run begun or ended) for this long (0: wait for every job to settle)"),
		connMx:     fs.Duration("connect-timeout", 15*time.Second, "how long reaching the database may take"),
		httpTarget: fs.String("http-target", "", "target address host:port for -wait-ready and the /db load"),
		clients:    fs.Int("http-clients", 0, "closed-loop clients sending GET /db?ms=-http-ms beside the jobs (0: none)"),
		httpMS:     fs.Int("http-ms", 300, "the /db request's pg_sleep in milliseconds"),
		timeout:    fs.Duration("http-timeout", 30*time.Second, "per-request timeout of the /db load"),
		drain:      fs.Duration("drain", 10*time.Second, "how long /db requests in flight at the end may finish"),
		idPrefix:   fs.String("id-prefix", "", "X-Request-Id prefix of the /db requests (default: random)"),
		ready:      c.ReadyFlags("before the load, poll GET PATH on -http-target until it answers 200 (e.g. /readyz)"),
	}
}

// config is what the producer does, from the flags.
type config struct {
	DSN      string
	Count    int
	Rate     float64
	Args     jobs.StepArgs
	Duration time.Duration
	Poll     time.Duration
	// Quiet ends the wait for the jobs to settle once nothing has moved
	// for this long with no job queued (0: never): jobs left running by a
	// dead replica do not settle until River's rescuer frees them.
	Quiet      time.Duration
	Connect    time.Duration
	HTTPTarget string
	// HTTP is the /db load beside the jobs (nil: none).
	HTTP *loadgen.Config
}

// config builds and validates the configuration; its errors name the flag.
func (f *flags) config(c *agentcmd.Command) (config, error) {
	cfg := config{DSN: *f.dsn, Count: *f.count, Rate: *f.rate, Duration: *f.duration, Poll: *f.poll, Quiet: *f.quiet,
		Connect: *f.connMx, HTTPTarget: *f.httpTarget,
		Args: jobs.StepArgs{Steps: *f.steps, StepMS: *f.stepMS, Idempotent: *f.idempotent}}
	if !strings.Contains(cfg.DSN, "://") && !strings.Contains(cfg.DSN, "=") {
		return cfg, agentcmd.BadFlag("dsn", cfg.DSN, "want a PostgreSQL URL (postgres://...) or key=value string")
	}
	if err := c.Positive("count", "steps", "duration", "poll", "connect-timeout", "http-timeout", "drain", "wait-timeout"); err != nil {
		return cfg, err
	}
	itoa := strconv.Itoa
	switch {
	case cfg.Count > 10000:
		return cfg, agentcmd.BadFlag("count", itoa(cfg.Count), "must be 1..10000")
	case cfg.Rate < 0:
		return cfg, agentcmd.BadFlag("rate", strconv.FormatFloat(cfg.Rate, 'f', -1, 64), "must be >= 0 (0: one batch)")
	case insertSpan(cfg.Count, cfg.Rate) >= cfg.Duration:
		return cfg, agentcmd.BadFlag("rate", strconv.FormatFloat(cfg.Rate, 'f', -1, 64),
			fmt.Sprintf("%d jobs take %s to insert, not within -duration %s", cfg.Count, insertSpan(cfg.Count, cfg.Rate), cfg.Duration))
	case cfg.Quiet < 0:
		return cfg, agentcmd.BadFlag("quiet", cfg.Quiet.String(), "must be >= 0 (0: wait for every job to settle)")
	case cfg.Quiet > 0 && cfg.Quiet <= time.Duration(cfg.Args.StepMS)*time.Millisecond:
		return cfg, agentcmd.BadFlag("quiet", cfg.Quiet.String(),
			fmt.Sprintf("must exceed a step (-step-ms %d): a job inside one step does not move", cfg.Args.StepMS))
	case cfg.Args.StepMS < 0:
		return cfg, agentcmd.BadFlag("step-ms", itoa(cfg.Args.StepMS), "must be >= 0")
	case *f.clients < 0:
		return cfg, agentcmd.BadFlag("http-clients", itoa(*f.clients), "must be >= 0 (0: no HTTP load)")
	case *f.httpMS < 0:
		return cfg, agentcmd.BadFlag("http-ms", itoa(*f.httpMS), "must be >= 0")
	}
	if *f.clients == 0 {
		return cfg, nil
	}
	if cfg.HTTPTarget == "" || strings.Contains(cfg.HTTPTarget, "/") {
		return cfg, agentcmd.BadFlag("http-target", cfg.HTTPTarget, "want host:port (required with -http-clients)")
	}
	ms := time.Duration(*f.httpMS) * time.Millisecond
	h := loadgen.Config{
		Target: cfg.HTTPTarget, Shape: loadgen.ShapeClosed, Clients: *f.clients, Duration: cfg.Duration,
		Timeout: *f.timeout, Drain: *f.drain, FailPause: 100 * time.Millisecond, Stagger: ms,
		Mix: []loadgen.MixEntry{{Method: "GET", Path: dbPath(*f.httpMS), Weight: 1}}, IDPrefix: *f.idPrefix,
	}.WithDefaults()
	if err := h.Validate(); err != nil {
		return cfg, agentcmd.BadFlag("http-clients", itoa(*f.clients), err.Error())
	}
	cfg.HTTP = &h
	return cfg, nil
}

// dbPath is the /db request of the HTTP load.
func dbPath(ms int) string { return "/db?ms=" + strconv.Itoa(ms) }

// insertSpan is how long after load start the last of count jobs goes in
// at rate per second (0 for a batch).
func insertSpan(count int, rate float64) time.Duration {
	if rate <= 0 || count <= 1 {
		return 0
	}
	return insertAt(count-1, rate)
}

// insertAt is when job i (from 0) goes in at rate per second, after load
// start.
func insertAt(i int, rate float64) time.Duration {
	return time.Duration(float64(i) / rate * float64(time.Second))
}
