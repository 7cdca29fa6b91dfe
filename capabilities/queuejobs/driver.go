package queuejobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/internal/service"
	"github.com/shutdownlab/shutdownlab/jobs"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// The job producer's image and the database's alias on the run network.
const (
	agentImageName = "shutdownlab/jobagent"
	agentPackage   = "./cmd/jobagent"
	postgresAlias  = "postgres"
	// migrateTimeout and ledgerTimeout bound the host's schema migration
	// and its ledger read.
	migrateTimeout = 60 * time.Second
	ledgerTimeout  = 60 * time.Second
)

// driver is the job producer (cmd/jobagent, load.kind jobs) as the runner
// drives it: River jobs on a PostgreSQL service, worked by the replicas
// (WORKER=on), optionally beside a closed loop of GET /db requests whose
// lines are the load agent's (its accounting rule applies to them). Its
// own line is the one jobs line; after the load it stops the replicas
// and reads the ledger into Meta.Jobs. It is a runner.ServiceDriver, a
// runner.StreamCounter and a runner.VariantAnnouncer.
type driver struct {
	http bool   // load.jobs.http_clients > 0 (set by Args)
	dsn  string // the database from this host, once started
	// password is the run's database password (service.NewPassword,
	// drawn by StartServices): replicas and the producer connect with it.
	password string
	// ledger is what AfterLoad read of the jobs the producer inserted
	// (nil before; Error set when it could not be read).
	ledger *record.Jobs

	mu        sync.Mutex
	lines     int
	line      *record.JobsLine
	progLine  record.JobsProgress // the latest jobs_progress line
	malformed []error
}

var (
	_ runner.ServiceDriver    = (*driver)(nil)
	_ runner.StreamCounter    = (*driver)(nil)
	_ runner.VariantAnnouncer = (*driver)(nil)
)

// ProgressWith is the latest jobs_progress line: jobs finished of those
// inserted, and with the /db load its requests and failures.
func (d *driver) ProgressWith(requests *runner.LoadCount) runner.LoadCount {
	d.mu.Lock()
	p := d.progLine
	d.mu.Unlock()
	c := runner.LoadCount{Done: int64(p.Finished), Unit: fmt.Sprintf("of %d jobs finished", p.Inserted)}
	if d.http && requests != nil {
		c.Unit += fmt.Sprintf(", %d /db requests", requests.Done)
		c.Failed = requests.Failed
	}
	return c
}

// Name names the load in messages.
func (*driver) Name() string { return "job producer" }

// Image is the job producer's image.
func (*driver) Image(ctx context.Context, imgs runner.ImageSource) (string, error) {
	return runner.GoImage(ctx, imgs, "job producer", agentImageName, agentPackage)
}

// Args are cmd/jobagent's flags for load.jobs: the database by its alias
// on the run network, the ready wait and the /db load on the agent's
// target.
func (d *driver) Args(v runner.LoadView) []string {
	l := v.Scenario().Load
	j := LoadOf(l)
	d.http = j.HTTPClients > 0
	args := []string{
		"-dsn", service.DSN(postgresAlias, d.password),
		"-count", strconv.Itoa(j.Count),
		"-rate", strconv.FormatFloat(j.Rate, 'f', -1, 64),
		"-steps", strconv.Itoa(j.Steps),
		"-step-ms", strconv.Itoa(j.StepMS),
		"-idempotent=" + strconv.FormatBool(j.Idempotent),
		"-duration", l.Duration.String(),
		"-http-target", v.AgentTarget(),
		"-http-clients", strconv.Itoa(j.HTTPClients),
		"-wait-ready", v.Scenario().Target.Protocol.ReadyPath,
		"-wait-timeout", v.ReadyTimeout().String(),
	}
	if j.Quiet != nil {
		args = append(args, "-quiet", j.Quiet.String())
	}
	if d.http {
		args = append(args, "-http-ms", strconv.Itoa(j.HTTPMS), "-http-timeout", l.Timeout.String(),
			"-drain", runner.AgentDrain.String(), "-id-prefix", fmt.Sprintf("r%d", v.RunSeq()))
	}
	return args
}

// Bound is the load's duration (inserts and the wait for every job to
// settle), plus the /db load's drain.
func (d *driver) Bound(spec scenarios.Spec) time.Duration {
	b := spec.Load.Duration.D()
	if j := LoadOf(spec.Load); j != nil && j.HTTPClients > 0 {
		b += runner.AgentDrain
	}
	return b
}

// Observe keeps the jobs line and the latest progress line; a line of
// any other type of its own is malformed.
func (d *driver) Observe(typ string, line []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if typ == record.TypeJobsProgress {
		var p record.JobsProgress
		if err := json.Unmarshal(line, &p); err != nil {
			d.malformed = append(d.malformed, fmt.Errorf("jobs_progress line: %w", err))
			return
		}
		d.progLine = p
		return
	}
	if typ != record.TypeJobs {
		d.malformed = append(d.malformed, fmt.Errorf("line of unknown type %q", typ))
		return
	}
	var l record.JobsLine
	if err := json.Unmarshal(line, &l); err != nil {
		d.malformed = append(d.malformed, fmt.Errorf("jobs line: %w", err))
		return
	}
	d.lines++
	d.line = &l
}

// jobsLine is the producer's jobs line (nil: none arrived).
func (d *driver) jobsLine() *record.JobsLine {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.line
}

// Check wants exactly one jobs line that reports no error, no malformed
// line, and for the /db load the agent's accounting (else no request
// line at all).
func (d *driver) Check(out runner.LoadOutput) error {
	var errs []error
	d.mu.Lock()
	lines, line := d.lines, d.line
	errs = append(errs, d.malformed...)
	d.mu.Unlock()
	if lines != 1 {
		errs = append(errs, fmt.Errorf("%d jobs lines, want exactly one", lines))
	}
	if line != nil && line.Error != "" {
		errs = append(errs, fmt.Errorf("the producer failed: %s", line.Error))
	}
	sum := out.Summary()
	if d.http {
		if err := out.Account(func(t *record.Tally) []error { return record.CheckAccounting(sum, t) }); err != nil {
			errs = append(errs, fmt.Errorf("/db requests: %w", err))
		}
	} else if err := out.Account(func(t *record.Tally) []error { return withoutHTTP(t, sum) }); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("jobs accounting: %w", joinProblems(errs))
	}
	return nil
}

// withoutHTTP are the problems of a run without the /db load: malformed
// lines, and any request, probe or summary line.
func withoutHTTP(t *record.Tally, sum *record.Summary) []error {
	var errs []error
	summaries := 0
	if sum != nil {
		summaries = 1
	}
	if t.Malformed > 0 {
		errs = append(errs, fmt.Errorf("%d malformed lines (last: %s)", t.Malformed, t.LastMalformed))
	}
	if t.Requests > 0 || t.Probes > 0 || summaries > 0 {
		errs = append(errs, fmt.Errorf("%d request, %d probe and %d summary lines without an HTTP load",
			t.Requests, t.Probes, summaries))
	}
	return errs
}

// joinProblems makes one error of problems, "; " between them, as the
// runner's accounting does (nil: none).
func joinProblems(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return errors.New(strings.Join(msgs, "; "))
}

// Collect keeps the jobs line, the ledger AfterLoad read, the /db load's
// summary when there was one, and the load's end: the summary's, else
// when every job had settled or the producer stopped waiting for quiet
// (0 when it waited the whole load.duration).
func (d *driver) Collect(meta *record.Meta, out runner.LoadOutput) {
	meta.LoadKind = record.LoadKindJobs
	meta.SetPart(d.ledger)
	meta.SetPart(d.jobsLine())
	if d.http {
		if sum := out.Summary(); sum != nil {
			meta.Agent = sum
			meta.LoadEndNs = sum.LoadEnd
		}
	}
	if l := meta.JobsLine(); meta.LoadEndNs == 0 && l != nil {
		meta.LoadEndNs = max(l.SettledNs, l.QuietNs)
	}
}

// Outcome is "6 jobs inserted, settled; ledger: completed_once 4,
// completed_handover 2" (and the /db requests' when they ran).
func (d *driver) Outcome(m record.Meta) string {
	l := m.JobsLine()
	if l == nil {
		return "no jobs line"
	}
	s := fmt.Sprintf("%d jobs inserted, ", len(l.IDs))
	switch {
	case l.Settled:
		s += "settled"
	case l.QuietNs > 0:
		s += "NOT all settled (the wait ended when nothing moved)"
	default:
		s += "NOT all settled within the load"
	}
	if j := m.Jobs(); j != nil && j.Error == "" {
		var parts []string
		for _, c := range record.JobClasses {
			if n := j.ByClass[c]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", c, n))
			}
		}
		s += "; ledger: " + strings.Join(parts, ", ")
		if j.StepsTwice > 0 {
			s += fmt.Sprintf(", steps twice in %d", j.StepsTwice)
		}
	}
	if m.Agent != nil {
		failed := 0
		for c, n := range m.Agent.ByClass {
			if c.Failed() {
				failed += n
			}
		}
		s += fmt.Sprintf("; /db: %d requests, %d failed", m.Agent.Started, failed)
	}
	return s
}

// Prepare builds the database image before any run.
func (*driver) Prepare(ctx context.Context, s runner.Session) error {
	db := databaseOf(s)
	if db == nil {
		return errors.New("load.kind jobs: this runner has no database service")
	}
	if _, err := db.Image(ctx); err != nil {
		return fmt.Errorf("postgres image: %w", err)
	}
	return nil
}

// StartServices starts PostgreSQL on the run network (alias postgres,
// the run's labels) and migrates its schema from this host, so every
// replica starts on a current schema.
func (d *driver) StartServices(ctx context.Context, v runner.ServiceView) error {
	db := databaseOf(v.Session())
	if db == nil {
		return errors.New("load.kind jobs: this runner has no database service")
	}
	d.password = service.NewPassword()
	dsn, err := db.Start(ctx, service.PostgresSpec{Name: v.ObjectName("postgres"), Network: v.NetworkName(),
		Alias: postgresAlias, Labels: v.RunLabels(), Password: d.password,
		MemoryBytes: v.Limits().MemoryBytes(), PidsLimit: int64(v.Limits().PIDs)})
	if err != nil {
		return err
	}
	d.dsn = dsn
	mctx, cancel := context.WithTimeout(ctx, migrateTimeout)
	defer cancel()
	if err := db.Migrate(mctx, dsn); err != nil {
		return fmt.Errorf("job queue schema: %w", err)
	}
	return nil
}

// Announce prints the budget audit of v before its runs.
func (*driver) Announce(p runner.Progress, v scenarios.Variant) {
	runner.LogBudget(p, v.Label, &v.Spec)
}

// ReplicaEnv makes every replica a queue worker on the run's database.
func (d *driver) ReplicaEnv() []string {
	return []string{"WORKER=on", "DATABASE_URL=" + service.DSN(postgresAlias, d.password)}
}

// AfterLoad stops the replicas still running and reads the ledger of the
// jobs the producer inserted (Meta.Jobs, by Collect). A ledger that
// cannot be read or does not add up makes the run invalid (and says why
// in Meta.Jobs).
func (d *driver) AfterLoad(ctx context.Context, v runner.ServiceView) error {
	if d.dsn == "" {
		return nil
	}
	if err := v.StopForAccounting(ctx); err != nil {
		return err
	}
	line := d.jobsLine()
	if line == nil {
		return nil // Check says the run has no jobs line
	}
	rescue := rescueAfter(v.Scenario().Target.Env)
	lctx, cancel := context.WithTimeout(ctx, ledgerTimeout)
	defer cancel()
	l, err := databaseOf(v.Session()).Account(lctx, d.dsn, line.IDs)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d.ledger = &record.Jobs{Inserted: len(line.IDs), RescueAfterMs: ms(rescue), Error: err.Error()}
		return runner.Invalidf("job ledger: %v", err)
	}
	rec := l.Record(rescue)
	d.ledger = &rec
	v.Logf("job ledger: %s", l)
	return nil
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rescueAfter is the workers' RESCUE_AFTER_MS from target.env, else the
// target's default (River's, 1 h).
func rescueAfter(env map[string]string) time.Duration {
	if v, err := strconv.Atoi(env["RESCUE_AFTER_MS"]); err == nil && v > 0 {
		return time.Duration(v) * time.Millisecond
	}
	return jobs.DefaultRescueAfter
}
