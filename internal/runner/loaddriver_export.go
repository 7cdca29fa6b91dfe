package runner

import (
	"context"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// LoadDriver is a load kind's driver as a capability package outside the
// runner writes it (capabilities/probe): what the runner's own drivers are
// (loadDriver), with exported methods. RegisterLoadDriver adapts it.
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

// AgentDrain is how long the load agent waits for its requests in flight
// once its load ends (its -drain flag): a kind that runs the agent passes
// it and adds it to its Bound.
const AgentDrain = agentDrain

// RegisterLoadDriver registers the driver of load kind k, made fresh for
// each run by mk, from the init function of the kind's capability
// package. A kind registered twice or empty panics at program start.
func RegisterLoadDriver(k scenarios.LoadKind, mk func() LoadDriver) {
	loadDrivers.register(k, func() loadDriver {
		d := mk()
		if c, ok := d.(LoadCounter); ok {
			return countingDriver{exportedDriver{d}, c}
		}
		return exportedDriver{d}
	})
}

// exportedDriver adapts a capability's LoadDriver to the runner's
// loadDriver.
type exportedDriver struct{ d LoadDriver }

func (e exportedDriver) name() string { return e.d.Name() }
func (e exportedDriver) image(ctx context.Context, imgs imageSource) (string, error) {
	return e.d.Image(ctx, imgs)
}
func (e exportedDriver) args(v loadView) []string                  { return e.d.Args(exportedView{v}) }
func (e exportedDriver) bound(spec scenarios.Spec) time.Duration   { return e.d.Bound(spec) }
func (e exportedDriver) observe(typ string, line []byte)           { e.d.Observe(typ, line) }
func (e exportedDriver) check(s *agentStream) error                { return e.d.Check(s) }
func (e exportedDriver) collect(meta *record.Meta, s *agentStream) { e.d.Collect(meta, s) }
func (e exportedDriver) outcome(m record.Meta) string              { return e.d.Outcome(m) }

// countingDriver is an exportedDriver whose LoadDriver counts its own
// progress (LoadCounter): a progressCounter.
type countingDriver struct {
	exportedDriver
	c LoadCounter
}

func (c countingDriver) progress(*agentStream) LoadCount { return c.c.Progress() }

// exportedView is a run's loadView as a LoadView.
type exportedView struct{ v loadView }

func (x exportedView) Scenario() *scenarios.Spec   { return x.v.scenario() }
func (x exportedView) AgentTarget() string         { return x.v.agentTarget() }
func (x exportedView) ReadyTimeout() time.Duration { return x.v.readyTimeout() }
func (x exportedView) RunSeq() int                 { return x.v.runSeq() }
