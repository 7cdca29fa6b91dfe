package runner

import (
	"fmt"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// TestSessionServices: New's services hold each capability's service
// under its name, read back typed by its accessor; a runner without them
// (a fake engine's) reads nil, which the capability refuses.
func TestSessionServices(t *testing.T) {
	r := &Runner{services: newServices(&docker.Engine{}, progressWriter{Discard})} // never dialled
	if len(r.services) != len(sessionServices.keys()) {
		t.Errorf("%d services for %d registered", len(r.services), len(sessionServices.keys()))
	}
	if got := fmt.Sprintf("%T", r.services[jobsDBService]); got != "*queuejobs.dockerDB" {
		t.Errorf("jobs db: %s", got)
	}
	if _, ok := swarmOf(r).(swarmEngine); !ok {
		t.Errorf("swarm: %T", swarmOf(r))
	}
	bare := &Runner{}
	if s := (runnerSession{bare}); s.Service(jobsDBService) != nil || swarmOf(bare) != nil || (runnerSession{}).Service(jobsDBService) != nil {
		t.Errorf("a runner without services: %v, %v", s.Service(jobsDBService), swarmOf(bare))
	}
	bare.setService(jobsDBService, &fakeDB{})
	if _, ok := (runnerSession{bare}).Service(jobsDBService).(*fakeDB); !ok {
		t.Errorf("a fake in its place: %T", (runnerSession{bare}).Service(jobsDBService))
	}
}
