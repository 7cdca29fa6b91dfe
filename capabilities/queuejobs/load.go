package queuejobs

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// LoadKind is load.kind jobs, the job producer (cmd/jobagent): it inserts
// load.jobs.count River jobs of load.jobs.steps steps into the run's
// PostgreSQL service, at a rate or as one batch, optionally beside a
// closed loop of GET /db requests, and waits until every job settled or
// load.duration passed. The replicas work the jobs (WORKER=on); after the
// load the runner stops every replica gracefully and reads the ledger.
const LoadKind scenarios.LoadKind = record.LoadKindJobs

// Bounds of a jobs load.
const (
	// MaxJobs bounds load.jobs.count.
	MaxJobs = 10000
	// MaxSteps bounds load.jobs.steps.
	MaxSteps = 1000
	// MaxStepMS bounds load.jobs.step_ms.
	MaxStepMS = 600000
	// MaxHTTPClients bounds load.jobs.http_clients.
	MaxHTTPClients = 200
	// MaxHTTPMS bounds load.jobs.http_ms.
	MaxHTTPMS = 600000
)

// DefaultHTTPMS is the default of load.jobs.http_ms.
const DefaultHTTPMS = 300

// Load configures a load of kind jobs (cmd/jobagent): the block
// load.jobs.
type Load struct {
	// Count is the number of jobs inserted, 1..10000 (required).
	Count int `yaml:"count" json:"count"`
	// Rate inserts the jobs at this many per second from load start;
	// 0 (default) inserts them as one batch at load start.
	Rate float64 `yaml:"rate" json:"rate,omitempty"`
	// Steps is each job's number of steps, 1..1000 (default 1).
	Steps int `yaml:"steps" json:"steps"`
	// StepMS is each step's duration in milliseconds, 0..600000
	// (default 1000). The worker checks for cancellation between steps
	// only.
	StepMS int `yaml:"step_ms" json:"step_ms"`
	// Idempotent makes each step's effect unique per (job, step): a
	// resumed job skips steps already applied. Default false: a retry
	// applies the completed steps again.
	Idempotent bool `yaml:"idempotent" json:"idempotent,omitempty"`
	// HTTPClients is the number of closed-loop clients sending GET
	// /db?ms=HTTPMS beside the jobs (requests on the replicas' database
	// pool, recorded as ordinary request lines), 0..200 (default 0).
	HTTPClients int `yaml:"http_clients" json:"http_clients,omitempty"`
	// HTTPMS is the query's pg_sleep in milliseconds, 0..600000
	// (default 300).
	HTTPMS int `yaml:"http_ms" json:"http_ms"`
	// Quiet ends the wait for the jobs once nothing has moved for this
	// long (no job state change, no step applied, no run begun or ended)
	// while no job is queued: jobs left running by a dead replica never
	// settle within a run unless River's rescuer frees them. It must
	// exceed a step. Unset (default): wait for every job to settle, at
	// most load.duration.
	Quiet *scenarios.Duration `yaml:"quiet" json:"quiet,omitempty"`
}

// loadKindDef is the jobs load's registration with package scenarios:
// its block, its check, the work it leaves in a replica for the shutdown
// budget audit, and the one runtime whose target has its queue worker.
var loadKindDef = scenarios.LoadKindDef{
	Block: "jobs", NewBlock: func() scenarios.LoadBlock { return new(Load) }, Validate: validate,
	Work: work, Runtime: scenarios.RuntimeGo, RuntimeOnly: "runs the Go target's queue worker (load.kind jobs), Go only",
}

// work is the work a jobs load leaves in a replica at the stop: a job of
// load.jobs.steps steps of step_ms, and a /db request of http_ms when
// http_clients send them (none without a block).
func work(l scenarios.LoadSpec) scenarios.ShutdownWork {
	j := LoadOf(l)
	if j == nil {
		return scenarios.ShutdownWork{}
	}
	w := scenarios.ShutdownWork{Steps: j.Steps, StepMS: j.StepMS}
	if j.HTTPClients > 0 {
		w.HTTPMS = j.HTTPMS
	}
	return w
}

// LoadKind says the block is the jobs load's (scenarios.LoadBlock).
func (*Load) LoadKind() scenarios.LoadKind { return LoadKind }

// LoadOf returns the load's jobs block (load.jobs), nil without one.
func LoadOf(l scenarios.LoadSpec) *Load {
	j, _ := l.Block(LoadKind).(*Load)
	return j
}

// UnmarshalYAML decodes a jobs block onto its defaults.
func (j *Load) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Load
	*j = DefaultLoad()
	return unmarshal((*plain)(j))
}

// DefaultLoad is a jobs block with every default filled (count stays
// 0: it is required).
func DefaultLoad() Load {
	return Load{Steps: 1, StepMS: 1000, HTTPMS: DefaultHTTPMS}
}

// InsertSpan is how long inserting the jobs takes at load.jobs.rate: the
// last of Count jobs goes in (Count-1)/Rate after load start (0 for a
// batch).
func (j *Load) InsertSpan() time.Duration {
	if j.Rate <= 0 || j.Count <= 1 {
		return 0
	}
	return time.Duration(float64(j.Count-1) / j.Rate * float64(time.Second))
}

// validate checks a jobs load: a jobs block with sound values, the Go
// target (the worker is its role), inserts that fit load.duration, and
// none of the agent's request settings.
func validate(s *scenarios.Spec, loc scenarios.Locator, fail scenarios.FailFunc) {
	j := LoadOf(s.Load)
	if j == nil {
		fail("load.jobs", "", "required for load.kind jobs (count, steps, step_ms, ...)")
		return
	}
	itoa := strconv.Itoa
	if j.Count < 1 || j.Count > MaxJobs {
		fail("load.jobs.count", itoa(j.Count), fmt.Sprintf("must be 1..%d", MaxJobs))
	}
	if j.Rate < 0 || j.Rate > 10000 {
		fail("load.jobs.rate", strconv.FormatFloat(j.Rate, 'f', -1, 64), "must be 0..10000 jobs per second (0: one batch at load start)")
	} else if d := s.Load.Duration; j.Count >= 1 && d > 0 && j.InsertSpan() >= d.D() {
		fail("load.jobs.rate", strconv.FormatFloat(j.Rate, 'f', -1, 64), fmt.Sprintf("%d jobs at this rate take %s to insert, not within load.duration (%s)",
			j.Count, j.InsertSpan().Round(time.Millisecond), d))
	}
	if j.Steps < 1 || j.Steps > MaxSteps {
		fail("load.jobs.steps", itoa(j.Steps), fmt.Sprintf("must be 1..%d", MaxSteps))
	}
	if j.StepMS < 0 || j.StepMS > MaxStepMS {
		fail("load.jobs.step_ms", itoa(j.StepMS), fmt.Sprintf("must be 0..%d", MaxStepMS))
	}
	if j.HTTPClients < 0 || j.HTTPClients > MaxHTTPClients {
		fail("load.jobs.http_clients", itoa(j.HTTPClients), fmt.Sprintf("must be 0..%d (0: no HTTP load)", MaxHTTPClients))
	}
	if j.HTTPMS < 0 || j.HTTPMS > MaxHTTPMS {
		fail("load.jobs.http_ms", itoa(j.HTTPMS), fmt.Sprintf("must be 0..%d", MaxHTTPMS))
	} else if j.HTTPClients == 0 && loc.Given("load.jobs.http_ms") {
		fail("load.jobs.http_ms", itoa(j.HTTPMS), "only with http_clients > 0")
	}
	if q := j.Quiet; q != nil {
		switch {
		case *q <= 0:
			fail("load.jobs.quiet", q.String(), "must be > 0 (leave it out to wait for every job to settle)")
		case q.D() <= time.Duration(j.StepMS)*time.Millisecond:
			fail("load.jobs.quiet", q.String(), fmt.Sprintf("must exceed a step (step_ms %d): a job inside one step does not move", j.StepMS))
		case s.Load.Duration > 0 && *q >= s.Load.Duration:
			fail("load.jobs.quiet", q.String(), fmt.Sprintf("must be shorter than load.duration (%s)", s.Load.Duration))
		}
	}
	if s.Target.Image != "" {
		fail("target.image", s.Target.Image, "not with load.kind jobs (the queue worker is the built-in Go target's WORKER role)")
	} else if s.Target.Runtime != scenarios.RuntimeGo {
		fail("target.runtime", string(s.Target.Runtime), "load.kind jobs needs runtime go (the queue worker is the Go target's WORKER role)")
	}
	for _, f := range scenarios.AgentOnlyFields {
		if loc.Given(f) {
			fail(f, "", "only for load.kind agent (a jobs load is configured in load.jobs)")
		}
	}
}
