package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// loadDriver is a run's load driver as the runner calls it: the load
// kind's LoadDriver (loaddriver_export.go), registered with
// RegisterLoadDriver by the kind's own file (the load agent's:
// loaddriver_agent.go) or its capability's package (capabilities/probe),
// with what it optionally implements (ServiceDriver, LoadCounter,
// StreamCounter, VariantAnnouncer) resolved once. The runner has no
// branch on the kind; it asks the run's driver.
//
// Every driver is a container on the run's network that prints JSON lines
// on stdout (docs/protocol.md): a record.Start line once its load start has
// passed (the action is timed from it), then its own lines. The runner
// copies every line to records.jsonl and keeps the lines agentStream knows
// (start, req, summary, probe); a line of any other type goes to the
// driver's observe.
type loadDriver struct {
	d LoadDriver
	// svc is d as a ServiceDriver; nil when its load needs no services.
	svc ServiceDriver
}

// loadDrivers make a fresh driver for a run, keyed by load kind
// (RegisterLoadDriver): a new kind adds no line here.
var loadDrivers = newRegistry[scenarios.LoadKind, func() LoadDriver]("load kind")

// newLoadDriver returns a driver for kind ("" is the default kind, the
// load agent).
func newLoadDriver(kind scenarios.LoadKind) (*loadDriver, error) {
	if kind == "" {
		kind = scenarios.LoadAgent
	}
	mk, ok := loadDrivers.lookup(kind)
	if !ok {
		return nil, fmt.Errorf("load.kind %q: this runner has no driver for it", kind)
	}
	d := mk()
	svc, _ := d.(ServiceDriver)
	return &loadDriver{d: d, svc: svc}, nil
}

// name names the load in messages: "load agent", "probe".
func (l *loadDriver) name() string { return l.d.Name() }

// image returns the image the load's container runs.
func (l *loadDriver) image(ctx context.Context, imgs imageSource) (string, error) {
	return l.d.Image(ctx, imgs)
}

// args are the container's arguments for the run v.
func (l *loadDriver) args(v loadView) []string { return l.d.Args(exportedView{v}) }

// bound is how long after its start line the load may run before it
// should have ended by itself; past it (plus agentExitSlack) the run is
// invalid.
func (l *loadDriver) bound(spec scenarios.Spec) time.Duration { return l.d.Bound(spec) }

// observe takes each output line of a type agentStream does not keep
// itself (LoadDriver.Observe).
func (l *loadDriver) observe(typ string, line []byte) { l.d.Observe(typ, line) }

// check says why the load's output does not account for itself (nil: it
// does), once the stream s ended.
func (l *loadDriver) check(s *agentStream) error { return l.d.Check(s) }

// collect stores what the load measured in the run's record.
func (l *loadDriver) collect(meta *record.Meta, s *agentStream) { l.d.Collect(meta, s) }

// outcome is the load's part of the one-line outcome after a valid run.
func (l *loadDriver) outcome(m record.Meta) string { return l.d.Outcome(m) }

// progress is the load's progress: the driver's own count (LoadCounter,
// StreamCounter) or the requests the stream s counted.
func (l *loadDriver) progress(s *agentStream) LoadCount {
	switch c := l.d.(type) {
	case LoadCounter:
		return c.Progress()
	case StreamCounter:
		if s == nil {
			return c.ProgressWith(nil)
		}
		n := requestCount(s)
		return c.ProgressWith(&n)
	}
	return requestCount(s)
}

// announce prints what the driver says before a variant's runs
// (VariantAnnouncer); most say nothing.
func (l *loadDriver) announce(p Progress, v scenarios.Variant) {
	if a, ok := l.d.(VariantAnnouncer); ok {
		a.Announce(p, v)
	}
}

// hasServices reports whether the load needs services (ServiceDriver:
// the jobs load's database); the runner then starts the load's container
// only once every replica is up.
func (l *loadDriver) hasServices() bool { return l.svc != nil }

// prepare builds the services' images before any run starts.
func (l *loadDriver) prepare(ctx context.Context, r *Runner) error {
	if l.svc == nil {
		return nil
	}
	return l.svc.Prepare(ctx, runnerSession{r})
}

// startServices starts the services on the run's network, before the
// replicas.
func (l *loadDriver) startServices(ctx context.Context, v serviceView) error {
	if l.svc == nil {
		return nil
	}
	return l.svc.StartServices(ctx, exportedServiceView{exportedView{v}, v})
}

// replicaEnv is environment every replica gets unless target.env sets
// the same variable.
func (l *loadDriver) replicaEnv() []string {
	if l.svc == nil {
		return nil
	}
	return l.svc.ReplicaEnv()
}

// afterLoad runs the services' work once the load ended; its error makes
// the run invalid.
func (l *loadDriver) afterLoad(ctx context.Context, v serviceView) error {
	if l.svc == nil {
		return nil
	}
	return l.svc.AfterLoad(ctx, exportedServiceView{exportedView{v}, v})
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

// serviceView is what a ServiceDriver sees of the run: what a load
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

// loadCount is the run's load progress: the driver's own count, or the
// requests the agent stream counted.
func (x *run) loadCount() LoadCount { return x.load.progress(x.stream) }

// requestCount is the requests the stream s counted, and the failed of
// them: the progress of a load counted in requests.
func requestCount(s *agentStream) LoadCount {
	return LoadCount{Done: s.requests.Load(), Failed: s.failed.Load(), Unit: "requests"}
}
