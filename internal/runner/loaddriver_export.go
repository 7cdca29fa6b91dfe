package runner

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// LoadDriver is a load kind's driver, as its capability package writes it
// (capabilities/probe) and RegisterLoadDriver registers it; the runner
// calls it through loadDriver.
//
// The driver is a container on the run's network that prints JSON lines
// on stdout (docs/protocol.md): a record.Start line once its load start
// has passed (the action is timed from it), then its own lines.
type LoadDriver interface {
	// Name names the load in messages ("probe").
	Name() string
	// Image returns the image the load's container runs, built (or found
	// by content hash) on first use.
	Image(ctx context.Context, imgs ImageSource) (string, error)
	// Args are the container's arguments for the run v.
	Args(v LoadView) []string
	// Bound is how long after its start line the load may run before it
	// should have ended by itself; past it the run is invalid.
	Bound(spec scenarios.Spec) time.Duration
	// Observe takes each output line of a type the runner's stream does
	// not keep itself (LoadOutput), as it arrives: typ is its "type", line
	// the whole line (valid during the call only). It runs with the
	// stream locked: it must neither block nor call the stream.
	Observe(typ string, line []byte)
	// Check says why the load's output does not account for itself (nil:
	// it does); the run is then invalid with this reason. It runs once the
	// output ended, for a run nothing else made invalid.
	Check(out LoadOutput) error
	// Collect stores what the load measured in the run's record.
	Collect(meta *record.Meta, out LoadOutput)
	// Outcome is the load's part of the one-line outcome printed after a
	// valid run, from its record.
	Outcome(m record.Meta) string
}

// ImageSource is what a LoadDriver may ask of the image cache.
type ImageSource interface {
	// Go returns the project's Go image name built from main package pkg.
	Go(ctx context.Context, name, pkg string) (string, error)
}

// GoImage is a LoadDriver's Image when its container runs one of the
// project's Go programs (main package pkg, image name): built, or found
// by content hash, on first use. what names the load in the error
// ("probe" gives "probe image: …").
func GoImage(ctx context.Context, imgs ImageSource, what, name, pkg string) (string, error) {
	ref, err := imgs.Go(ctx, name, pkg)
	if err != nil {
		return "", fmt.Errorf("%s image: %w", what, err)
	}
	return ref, nil
}

// LoadView is what a LoadDriver sees of its run when it builds its
// container's arguments.
type LoadView interface {
	// Scenario is the variant's scenario.
	Scenario() *scenarios.Spec
	// AgentTarget is where the load goes: the first replica, or the proxy.
	AgentTarget() string
	// ReadyTimeout is how long the target may take to be ready.
	ReadyTimeout() time.Duration
	// RunSeq numbers the run within the session (unique ids).
	RunSeq() int
}

// LoadOutput is what a LoadDriver reads of its run's output stream once
// it ended: what the stream counted and kept of the lines of the types
// package record knows.
type LoadOutput interface {
	// Last is the last line of type typ the stream kept (a record type
	// it counts itself, such as record.TypeProbe), decoded; nil: none.
	Last(typ string) any
	// Account applies an accounting rule (record.CheckProbeAccounting)
	// to the stream's tally; the error joins its problems (nil: none).
	Account(rule func(*record.Tally) []error) error
	// Summary is the load agent's summary line (nil: none arrived), for
	// a kind whose container is the load agent (capabilities/hostile).
	Summary() *record.Summary
}

// LoadCounter is implemented by a LoadDriver whose load is not counted in
// requests (the WebSocket agent's connection attempts): Progress says
// what it counted so far. The progress ticker calls it while Observe may
// run, so it must be safe for that. A driver without it is counted in
// the request lines the stream sees.
type LoadCounter interface {
	// Progress is the load's progress so far.
	Progress() LoadCount
}

// StreamCounter is implemented by a LoadDriver that counts its own
// progress and adds to it the request lines the run's stream counted (the
// jobs load's /db requests): ProgressWith gets those (Done requests,
// Failed of them; nil before the stream exists). It is called as
// LoadCounter's Progress is, and must be as safe.
type StreamCounter interface {
	// ProgressWith is the load's progress so far, given the stream's.
	ProgressWith(requests *LoadCount) LoadCount
}

// VariantAnnouncer is implemented by a LoadDriver that says something
// before a variant's runs (the jobs load: whether its shutdown budget
// fits the grace period; the report says after whether it did).
type VariantAnnouncer interface {
	// Announce prints its lines on p before the runs of v.
	Announce(p Progress, v scenarios.Variant)
}

// ServiceDriver is implemented by a LoadDriver whose load needs more than
// the replicas and its own container: services started
// before the replicas (the jobs load's PostgreSQL), environment for every
// replica, and work after the load (stopping the replicas, reading a
// ledger). The runner starts its container only once every replica is up.
type ServiceDriver interface {
	LoadDriver
	// Prepare builds the services' images before any run starts, with
	// the runner's session services.
	Prepare(ctx context.Context, s Session) error
	// StartServices starts the services on the run's network (the run's
	// labels on every container, so teardown removes them), before the
	// replicas.
	StartServices(ctx context.Context, v ServiceView) error
	// ReplicaEnv is environment every replica gets unless target.env
	// sets the same variable ("KEY=value" entries).
	ReplicaEnv() []string
	// AfterLoad runs once the load ended (and sampling stopped), before
	// the run is collected: its error makes the run invalid (Invalidf
	// says why).
	AfterLoad(ctx context.Context, v ServiceView) error
}

// Session is the runner's session as a ServiceDriver sees it: its
// session services (RegisterSessionService).
type Session interface {
	// Service is session service name (nil: this runner has none, as on
	// a fake engine; tests may put a fake in its place).
	Service(name string) any
}

// ServiceView is what a ServiceDriver sees of its run: what a LoadView
// shows, the run's place on the engine (its objects' names, network and
// labels, its harness limits), the session's services, and the one thing
// it may do to the replicas: stop those still running so a ledger can be
// read.
type ServiceView interface {
	LoadView
	// ObjectName is the engine name of the run's object part
	// ("postgres": "<run>-postgres").
	ObjectName(part string) string
	// NetworkName is the run's network.
	NetworkName() string
	// RunLabels are the labels every object of the run carries.
	RunLabels() map[string]string
	// Limits are the harness's memory and pid limits for a container.
	Limits() scenarios.HarnessLimits
	// Session is the runner's session, for the driver's session service.
	Session() Session
	// StopForAccounting stops the replicas still running, gracefully,
	// unrecorded (the run's outcome is already measured).
	StopForAccounting(ctx context.Context) error
	// Logf prints a progress line.
	Logf(format string, args ...any)
}

// AgentDrain is how long the load agent waits for its requests in flight
// once its load ends (its -drain flag): a kind that runs the agent passes
// it and adds it to its Bound.
const AgentDrain = agentDrain

// RegisterLoadDriver registers the driver of load kind k, made fresh for
// each run by mk, from the init function of the kind's capability
// package (or, for the load agent, its file). A driver that is also a
// ServiceDriver has its services; one that is a LoadCounter, a
// StreamCounter or a VariantAnnouncer counts its progress or announces
// its variants. A kind registered twice or empty panics at program start.
func RegisterLoadDriver(k scenarios.LoadKind, mk func() LoadDriver) { loadDrivers.register(k, mk) }

// runnerSession is a Runner as a Session: its session services.
type runnerSession struct{ r *Runner }

func (s runnerSession) Service(name string) any {
	if s.r == nil {
		return nil
	}
	return s.r.services[name]
}

// exportedServiceView is a run's serviceView as a ServiceView.
type exportedServiceView struct {
	exportedView
	sv serviceView
}

func (x exportedServiceView) ObjectName(part string) string   { return x.sv.objectName(part) }
func (x exportedServiceView) NetworkName() string             { return x.sv.networkName() }
func (x exportedServiceView) RunLabels() map[string]string    { return x.sv.runLabels() }
func (x exportedServiceView) Limits() scenarios.HarnessLimits { return x.sv.limits() }
func (x exportedServiceView) Session() Session                { return runnerSession{x.sv.session()} }
func (x exportedServiceView) StopForAccounting(ctx context.Context) error {
	return x.sv.stopForAccounting(ctx)
}
func (x exportedServiceView) Logf(format string, args ...any) { x.sv.logf(format, args...) }

// RegisterSessionService registers session service name (services.go),
// made once per Runner from its engine by mk, from the init function of
// the capability that uses it; log is where the service reports its
// progress (image builds). A driver reads it back with Session.Service;
// a runner on a fake engine may have none. A name registered twice
// panics at program start.
func RegisterSessionService(name string, mk func(eng *docker.Engine, log io.Writer) any) {
	sessionServices.register(name, func(eng *docker.Engine, log progressWriter) any { return mk(eng, log) })
}

// Invalidf is an error that makes the run invalid with this reason, as a
// ServiceDriver's AfterLoad returns it (a ledger that cannot be read).
func Invalidf(format string, args ...any) error { return invalidf(format, args...) }

// exportedView is a run's loadView as a LoadView.
type exportedView struct{ v loadView }

func (x exportedView) Scenario() *scenarios.Spec   { return x.v.scenario() }
func (x exportedView) AgentTarget() string         { return x.v.agentTarget() }
func (x exportedView) ReadyTimeout() time.Duration { return x.v.readyTimeout() }
func (x exportedView) RunSeq() int                 { return x.v.runSeq() }
