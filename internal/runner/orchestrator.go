package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/swarm"
)

// orchestrator is the part of *swarm.Engine a swarm run uses: exactly the
// calls swarmPlatform makes, so the platform runs against an in-memory
// fake in unit tests (fakeorchestrator_test.go). Each method's contract is
// the *swarm.Engine method's of the same name.
type orchestrator interface {
	// Acquire takes a swarm lease (created: this session initialised
	// the swarm).
	Acquire(ctx context.Context) (l swarmLease, created bool, err error)
	// NodeName is the name of the node the engine runs on.
	NodeName(ctx context.Context) (string, error)
	CreateOverlay(ctx context.Context, name string, labels map[string]string) (string, error)
	CreateService(ctx context.Context, c swarm.ServiceConfig) (string, error)
	// WatchService follows the engine events of the service's containers.
	WatchService(ctx context.Context, id string) (serviceWatch, error)
	WaitConverged(ctx context.Context, id string, replicas int, generation uint64, poll, timeout time.Duration) (swarm.Convergence, error)
	Update(ctx context.Context, id string, r swarm.Rollout) (swarm.RolloutStart, error)
	Tasks(ctx context.Context, id string) ([]swarm.Task, error)
	RemoveService(ctx context.Context, id string, bound time.Duration) error
	RemoveNetwork(ctx context.Context, name string, bound time.Duration) error
}

// swarmLease is a held swarm lease (*swarm.Lease).
type swarmLease interface {
	// Release gives it back; left is true when that left the swarm.
	Release(ctx context.Context) (left bool, err error)
}

// serviceWatch is a running event watch (*swarm.Watch).
type serviceWatch interface {
	// Stop ends it after grace and returns what it saw.
	Stop(grace time.Duration) ([]swarm.Event, error)
}

// swarmEngine is the orchestrator over a real Docker engine.
type swarmEngine struct{ *swarm.Engine }

// newSwarmEngine is the orchestrator of engine d.
func newSwarmEngine(d *docker.Engine) orchestrator { return swarmEngine{swarm.New(d)} }

// swarmService is platform swarm's orchestrator as a session service
// (services.go): one per Runner, read back with swarmOf.
const swarmService = "swarm"

func init() {
	sessionServices.register(swarmService, func(eng *docker.Engine, _ progressWriter) any { return newSwarmEngine(eng) })
}

// swarmOf is r's orchestrator (nil: this runner cannot host a service).
func swarmOf(r *Runner) orchestrator { return serviceOf[orchestrator](r, swarmService) }

func (e swarmEngine) Acquire(ctx context.Context) (swarmLease, bool, error) {
	l, err := e.Engine.Acquire(ctx)
	if err != nil {
		return nil, false, err
	}
	return l, l.Created, nil
}

func (e swarmEngine) NodeName(ctx context.Context) (string, error) {
	info, err := e.Docker().Client().Info(ctx, client.InfoOptions{})
	if err != nil {
		return "", fmt.Errorf("docker info: %w", err)
	}
	return info.Info.Name, nil
}

func (e swarmEngine) WatchService(ctx context.Context, id string) (serviceWatch, error) {
	w, err := e.Engine.WatchService(ctx, id)
	if err != nil {
		return nil, err
	}
	return w, nil
}
