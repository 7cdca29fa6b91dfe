package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// loadDriver is one load kind (scenarios.LoadKind) as the runner sees it:
// the program that drives the target during a run. The runner has no
// branch on the kind; it asks the run's driver.
//
// Every driver is a container on the run's network that prints JSON lines
// on stdout (docs/protocol.md): a record.Start line once its load start has
// passed (the action is timed from it), then its own lines. The runner
// copies every line to records.jsonl and keeps the lines agentStream knows
// (start, req, summary, probe); a line of any other type goes to the
// driver's observe. A new kind is one new file: a type implementing
// loadDriver, registered in loadDrivers by that file; or, for a kind
// that lives in its capability's package (capabilities/probe), a
// LoadDriver registered by RegisterLoadDriver (loaddriver_export.go).
type loadDriver interface {
	// name names the load in messages: "load agent", "probe".
	name() string
	// image returns the image the load's container runs, built (or found
	// by content hash) on first use.
	image(ctx context.Context, imgs imageSource) (string, error)
	// args are the container's arguments for the run v: where to send the
	// load (v.agentTarget()), the ready wait (v.readyTimeout()), and the
	// kind's own settings in v.scenario().Load.
	args(v loadView) []string
	// bound is how long after its start line the load may run before it
	// should have ended by itself; past it (plus agentExitSlack) the run
	// is invalid.
	bound(spec scenarios.Spec) time.Duration
	// observe takes each output line of a type agentStream does not keep
	// itself, as it arrives: typ is its "type", line the whole line (valid
	// during the call only). It runs on the stream's goroutine with the
	// stream locked: it must neither block nor call the stream. A kind
	// with its own line types counts them here for check and collect.
	observe(typ string, line []byte)
	// check says why the load's output does not account for itself (nil:
	// it does): the run is then invalid with this reason. It runs once the
	// output stream has ended, for a run nothing else made invalid.
	check(s *agentStream) error
	// collect stores what the load measured in the run's record.
	collect(meta *record.Meta, s *agentStream)
	// outcome is the load's part of the one-line outcome printed after a
	// valid run ("120 requests, 3 failed"), from its record.
	outcome(m record.Meta) string
}

// loadDrivers make a fresh driver for a run, keyed by load kind, each
// registered by its driver's own file (loaddriver_NAME.go) or its
// capability's package (RegisterLoadDriver): a new kind adds no line here.
var loadDrivers = newRegistry[scenarios.LoadKind, func() loadDriver]("load kind")

// newLoadDriver returns a driver for kind ("" is the default kind, the
// load agent).
func newLoadDriver(kind scenarios.LoadKind) (loadDriver, error) {
	if kind == "" {
		kind = scenarios.LoadAgent
	}
	mk, ok := loadDrivers.lookup(kind)
	if !ok {
		return nil, fmt.Errorf("load.kind %q: this runner has no driver for it", kind)
	}
	return mk(), nil
}

// loadView is what a load driver sees of its run when it builds its
// container's arguments: not the whole run.
type loadView interface {
	// scenario is the variant's scenario.
	scenario() *scenarios.Spec
	// agentTarget is where the load goes: the first replica, or the proxy.
	agentTarget() string
	// readyTimeout is how long the target may take to be ready.
	readyTimeout() time.Duration
	// runSeq numbers the run within the session (unique request ids).
	runSeq() int
}

func (x *run) scenario() *scenarios.Spec { return &x.spec }
func (x *run) runSeq() int               { return x.r.seq }

// serviceDriver is implemented by a load kind that needs more than the
// replicas and its own container: services started before the replicas
// (the jobs load's PostgreSQL), environment for every replica, and work
// after the load (stopping the replicas, reading the ledger). The runner
// starts its container only once every replica is up.
type serviceDriver interface {
	// prepare builds the services' images before any run starts, with
	// the runner's session services (services.go).
	prepare(ctx context.Context, r *Runner) error
	// startServices starts the services on the run's network (the run's
	// labels on every container, so teardown removes them), before the
	// replicas.
	startServices(ctx context.Context, v serviceView) error
	// replicaEnv is environment every replica gets unless target.env
	// sets the same variable ("KEY=value" entries).
	replicaEnv() []string
	// afterLoad runs once the load ended (and sampling stopped), before
	// the run is collected: its error makes the run invalid.
	afterLoad(ctx context.Context, v serviceView) error
}

// serviceView is what a serviceDriver sees of the run: what a load
// driver sees, the run's place on the engine (its objects' names, network
// and labels, its harness limits), the job queue's database, and the one
// thing it may do to the replicas: stop those still running so a ledger
// can be read.
type serviceView interface {
	loadView
	// objectName is the engine name of the run's object part
	// ("postgres": "<run>-postgres").
	objectName(part string) string
	// networkName is the run's network.
	networkName() string
	// runLabels are the labels every object of the run carries.
	runLabels() map[string]string
	// limits are the harness's memory and pid limits for a container.
	limits() scenarios.HarnessLimits
	// session is the runner, for the driver's session service
	// (services.go; Session.Service for a capability's driver).
	session() *Runner
	// stopForAccounting stops the replicas still running (stopForAccounting).
	stopForAccounting(ctx context.Context) error
	// logf prints a progress line.
	logf(format string, args ...any)
}

func (x *run) objectName(part string) string { return x.name + "-" + part }
func (x *run) networkName() string           { return x.obj.network }
func (x *run) runLabels() map[string]string  { return x.obj.labels }
func (x *run) session() *Runner              { return x.r }
func (x *run) logf(format string, args ...any) {
	x.r.opts.Progress.Logf(format, args...)
}

// variantAnnouncer is implemented by a driver that says something before
// a variant's runs (the jobs load: whether its shutdown budget fits the
// grace period; the report says after whether it did).
type variantAnnouncer interface {
	announce(p Progress, v scenarios.Variant)
}

// progressCounter is implemented by a driver whose load is not counted in
// requests: progress says what it counted so far, with s the run's output
// stream (it may be called while the stream is being observed, so it must
// be safe for that).
type progressCounter interface {
	progress(s *agentStream) LoadCount
}

// loadCount is the run's load progress: the driver's own count, or the
// requests the agent stream counted.
func (x *run) loadCount() LoadCount {
	if c, ok := x.load.(progressCounter); ok {
		return c.progress(x.stream)
	}
	return requestCount(x.stream)
}

// requestCount is the requests the stream s counted, and the failed of
// them: the progress of a load counted in requests.
func requestCount(s *agentStream) LoadCount {
	return LoadCount{Done: s.requests.Load(), Failed: s.failed.Load(), Unit: "requests"}
}
