package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// platform is what one run does differently on each place its replicas
// can run: plain Docker containers (dockerPlatform) or the tasks of a
// Swarm service (swarmPlatform). Everything else of a run — its bounds,
// the load's start and progress, the agent's records, the overlap watch,
// the cleanup context and the validity rules — is the one lifecycle of
// runOnce and execute, whatever the platform.
type platform interface {
	// setUpParts names what set-up creates, for the error when it
	// overruns its bound ("network, containers, readiness").
	setUpParts() string
	// startAll creates the network, the replicas, the proxy and the load
	// agent (setUp bounds it). Whatever it created is recorded before any
	// error check, so teardown always finds it.
	startAll(ctx context.Context) error
	// act performs the scenario's action once the load started; an action
	// the platform cannot express is refused by the scenario's validation
	// before any run.
	act(ctx context.Context, loadStart time.Time) error
	// afterLoad runs once the load ended, before collect: err is what
	// ended the run so far (nil: none), and the result replaces it.
	afterLoad(ctx context.Context, err error) error
	// collect reads back the replicas' states and logs and the load's
	// records into the run's Meta.
	collect(ctx context.Context) error
	// teardown removes everything the run created, whatever the other
	// steps did.
	teardown(ctx context.Context) error
	// cleanupSlack is added to the collect-and-teardown bound (a Swarm
	// service's tasks drain within their grace period first).
	cleanupSlack() time.Duration
	// finish records what only this platform observed into meta.
	finish(meta *record.Meta)
	// agent is the load agent startAll started (nil: none).
	agent() agentProc
}

// platforms make a run's platform, keyed by scenarios.Platform, each
// registered by its own file (this one, platform_swarm.go): a new
// platform adds no line here. The scenarios say which action kinds each
// takes (scenarios/actionkind.go), so act is never asked for one it
// cannot express.
var platforms = newRegistry[scenarios.Platform, func(x *run) (platform, error)]("platform")

// Registers the Docker platform with the runner (registry.go).
func init() {
	platforms.register(scenarios.PlatformDirect, func(x *run) (platform, error) { return dockerPlatform{x}, nil })
}

// newPlatform returns the platform of the run's scenario ("" is direct).
func newPlatform(x *run) (platform, error) {
	name := x.spec.Platform
	if name == "" {
		name = scenarios.PlatformDirect
	}
	mk, ok := platforms.lookup(name)
	if !ok {
		return nil, fmt.Errorf("platform %q: this runner has no implementation of it", name)
	}
	return mk(x)
}

// dockerPlatform runs the replicas as containers on the run's own bridge
// network, with the run hooks, the load's services and the actions
// signal, stop and roll (act.go).
type dockerPlatform struct{ x *run }

func (p dockerPlatform) setUpParts() string                         { return "network, containers, readiness" }
func (p dockerPlatform) startAll(ctx context.Context) error         { return p.x.startAll(ctx) }
func (p dockerPlatform) act(ctx context.Context, t time.Time) error { return p.x.act(ctx, t) }
func (p dockerPlatform) collect(ctx context.Context) error          { return p.x.collect(ctx) }
func (p dockerPlatform) teardown(ctx context.Context) error         { return p.x.teardown(ctx) }
func (p dockerPlatform) cleanupSlack() time.Duration                { return 0 }
func (p dockerPlatform) finish(*record.Meta)                        {}
func (p dockerPlatform) agent() agentProc                           { return containerAgentOf(p.x) }

// afterLoad tells the run hooks the load ended and, for a run that got through,
// runs the load's own after-work (the jobs ledger), which bounds and
// interrupts itself with ctx.
func (p dockerPlatform) afterLoad(ctx context.Context, err error) error {
	x := p.x
	if serr := x.loadEnded(); serr != nil && err == nil {
		err = serr
	}
	if err == nil && ctx.Err() == nil {
		err = x.load.afterLoad(ctx, x)
	}
	return err
}
