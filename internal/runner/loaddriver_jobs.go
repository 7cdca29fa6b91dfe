package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs"
	"github.com/shutdownlab/shutdownlab/internal/service"
	"github.com/shutdownlab/shutdownlab/jobs"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Registers this file's load kind with the runner (registry.go). The
// kind's block lives in its capability (capabilities/queuejobs); its
// driver is still the runner's, since it is a serviceDriver, a
// variantAnnouncer and a progressCounter on the runner's own session
// service (jobsdb.go), none of them exported yet.
func init() {
	loadDrivers.register(queuejobs.LoadKind, func() loadDriver { return &jobsDriver{} })
}

// The job producer's image and the database's alias on the run network.
const (
	jobAgentImageName = "shutdownlab/jobagent"
	jobAgentPackage   = "./cmd/jobagent"
	postgresAlias     = "postgres"
	// migrateTimeout and ledgerTimeout bound the host's schema migration
	// and its ledger read.
	migrateTimeout = 60 * time.Second
	ledgerTimeout  = 60 * time.Second
)

// jobsDriver is the job producer (cmd/jobagent, load.kind jobs):
// River jobs on a PostgreSQL service, worked by the replicas (WORKER=on),
// optionally beside a closed loop of GET /db requests whose lines are the
// load agent's (agentDriver's accounting applies to them). Its own line
// is the one jobs line; after the load it stops the replicas and reads the
// ledger into Meta.Jobs.
type jobsDriver struct {
	agentDriver
	http bool   // load.jobs.http_clients > 0 (set by args)
	dsn  string // the database from this host, once started
	// password is the run's database password (service.NewPassword,
	// drawn by startServices): replicas and the producer connect with it.
	password string
	// ledger is what afterLoad read of the jobs the producer inserted
	// (nil before; Error set when it could not be read).
	ledger *record.Jobs

	mu        sync.Mutex
	lines     int
	line      *record.JobsLine
	progLine  record.JobsProgress // the latest jobs_progress line
	malformed []error
}

// progress is the latest jobs_progress line: jobs finished of those
// inserted, and with the /db load its requests and failures.
func (d *jobsDriver) progress(s *agentStream) LoadCount {
	d.mu.Lock()
	p := d.progLine
	d.mu.Unlock()
	c := LoadCount{Done: int64(p.Finished), Unit: fmt.Sprintf("of %d jobs finished", p.Inserted)}
	if d.http && s != nil {
		c.Unit += fmt.Sprintf(", %d /db requests", s.requests.Load())
		c.Failed = s.failed.Load()
	}
	return c
}

func (*jobsDriver) name() string { return "job producer" }

func (*jobsDriver) image(ctx context.Context, imgs imageSource) (string, error) {
	ref, err := imgs.Go(ctx, jobAgentImageName, jobAgentPackage)
	if err != nil {
		return "", fmt.Errorf("job producer image: %w", err)
	}
	return ref, nil
}

// args are cmd/jobagent's flags for load.jobs: the database by its alias
// on the run network, the ready wait and the /db load on the agent's
// target.
func (d *jobsDriver) args(v loadView) []string {
	l := v.scenario().Load
	j := queuejobs.LoadOf(l)
	d.http = j.HTTPClients > 0
	args := []string{
		"-dsn", service.DSN(postgresAlias, d.password),
		"-count", strconv.Itoa(j.Count),
		"-rate", strconv.FormatFloat(j.Rate, 'f', -1, 64),
		"-steps", strconv.Itoa(j.Steps),
		"-step-ms", strconv.Itoa(j.StepMS),
		"-idempotent=" + strconv.FormatBool(j.Idempotent),
		"-duration", l.Duration.String(),
		"-http-target", v.agentTarget(),
		"-http-clients", strconv.Itoa(j.HTTPClients),
		"-wait-ready", v.scenario().Target.Protocol.ReadyPath,
		"-wait-timeout", v.readyTimeout().String(),
	}
	if j.Quiet != nil {
		args = append(args, "-quiet", j.Quiet.String())
	}
	if d.http {
		args = append(args, "-http-ms", strconv.Itoa(j.HTTPMS), "-http-timeout", l.Timeout.String(),
			"-drain", agentDrain.String(), "-id-prefix", fmt.Sprintf("r%d", v.runSeq()))
	}
	return args
}

// bound is the load's duration (inserts and the wait for every job to
// settle), plus the /db load's drain.
func (d *jobsDriver) bound(spec scenarios.Spec) time.Duration {
	b := spec.Load.Duration.D()
	if j := queuejobs.LoadOf(spec.Load); j != nil && j.HTTPClients > 0 {
		b += agentDrain
	}
	return b
}

// observe keeps the jobs line and the latest progress line; a line of
// any other type of its own is malformed.
func (d *jobsDriver) observe(typ string, line []byte) {
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
func (d *jobsDriver) jobsLine() *record.JobsLine {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.line
}

// check wants exactly one jobs line that reports no error, no malformed
// line, and for the /db load the agent's accounting (else no request
// line at all).
func (d *jobsDriver) check(s *agentStream) error {
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
	if d.http {
		if err := s.checkAccounting(); err != nil {
			errs = append(errs, fmt.Errorf("/db requests: %w", err))
		}
	} else {
		s.mu.Lock()
		t, summaries := s.tally, 0
		if s.summary != nil {
			summaries = 1
		}
		s.mu.Unlock()
		if t.Malformed > 0 {
			errs = append(errs, fmt.Errorf("%d malformed lines (last: %s)", t.Malformed, t.LastMalformed))
		}
		if t.Requests > 0 || t.Probes > 0 || summaries > 0 {
			errs = append(errs, fmt.Errorf("%d request, %d probe and %d summary lines without an HTTP load",
				t.Requests, t.Probes, summaries))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("jobs accounting: %w", joinProblems(errs))
	}
	return nil
}

// collect keeps the jobs line, the ledger afterLoad read, the /db load's
// summary when there was one,
// and the load's end: the summary's, else when every job had settled or
// the producer stopped waiting for quiet (0 when it waited the whole
// load.duration).
func (d *jobsDriver) collect(meta *record.Meta, s *agentStream) {
	meta.LoadKind = record.LoadKindJobs
	meta.SetPart(d.ledger)
	meta.SetPart(d.jobsLine())
	if d.http {
		d.agentDriver.collect(meta, s)
	}
	if l := meta.JobsLine(); meta.LoadEndNs == 0 && l != nil {
		meta.LoadEndNs = max(l.SettledNs, l.QuietNs)
	}
}

// outcome is "6 jobs inserted, settled; ledger: completed_once 4,
// completed_handover 2" (and the /db requests' when they ran).
func (d *jobsDriver) outcome(m record.Meta) string {
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
		s += "; /db: " + d.agentDriver.outcome(m)
	}
	return s
}

// prepare builds the database image before any run.
func (*jobsDriver) prepare(ctx context.Context, r *Runner) error {
	db := jobsDBOf(r)
	if db == nil {
		return errors.New("load.kind jobs: this runner has no database service")
	}
	if _, err := db.image(ctx); err != nil {
		return fmt.Errorf("postgres image: %w", err)
	}
	return nil
}

// startServices starts PostgreSQL on the run network (alias postgres,
// the run's labels) and migrates its schema from this host, so every
// replica starts on a current schema.
func (d *jobsDriver) startServices(ctx context.Context, v serviceView) error {
	db := jobsDBOf(v.session())
	if db == nil {
		return errors.New("load.kind jobs: this runner has no database service")
	}
	d.password = service.NewPassword()
	dsn, err := db.start(ctx, service.PostgresSpec{Name: v.objectName("postgres"), Network: v.networkName(),
		Alias: postgresAlias, Labels: v.runLabels(), Password: d.password,
		MemoryBytes: v.limits().MemoryBytes(), PidsLimit: int64(v.limits().PIDs)})
	if err != nil {
		return err
	}
	d.dsn = dsn
	mctx, cancel := context.WithTimeout(ctx, migrateTimeout)
	defer cancel()
	if err := db.migrate(mctx, dsn); err != nil {
		return fmt.Errorf("job queue schema: %w", err)
	}
	return nil
}

// announce prints the budget audit of v before its runs.
func (*jobsDriver) announce(p Progress, v scenarios.Variant) { LogBudget(p, v.Label, &v.Spec) }

// replicaEnv makes every replica a queue worker on the run's database.
func (d *jobsDriver) replicaEnv() []string {
	return []string{"WORKER=on", "DATABASE_URL=" + service.DSN(postgresAlias, d.password)}
}

// afterLoad stops the replicas still running and reads the ledger of the
// jobs the producer inserted (Meta.Jobs, by collect). A ledger that cannot
// be read or does not add up makes the run invalid (and says why in
// Meta.Jobs).
func (d *jobsDriver) afterLoad(ctx context.Context, v serviceView) error {
	if d.dsn == "" {
		return nil
	}
	if err := v.stopForAccounting(ctx); err != nil {
		return err
	}
	line := d.jobsLine()
	if line == nil {
		return nil // check says the run has no jobs line
	}
	rescue := rescueAfter(v.scenario().Target.Env)
	lctx, cancel := context.WithTimeout(ctx, ledgerTimeout)
	defer cancel()
	l, err := jobsDBOf(v.session()).account(lctx, d.dsn, line.IDs)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d.ledger = &record.Jobs{Inserted: len(line.IDs), RescueAfterMs: ms(rescue), Error: err.Error()}
		return invalidf("job ledger: %v", err)
	}
	rec := l.Record(rescue)
	d.ledger = &rec
	v.logf("job ledger: %s", l)
	return nil
}

// rescueAfter is the workers' RESCUE_AFTER_MS from target.env, else the
// target's default (River's, 1 h).
func rescueAfter(env map[string]string) time.Duration {
	if v, err := strconv.Atoi(env["RESCUE_AFTER_MS"]); err == nil && v > 0 {
		return time.Duration(v) * time.Millisecond
	}
	return jobs.DefaultRescueAfter
}
