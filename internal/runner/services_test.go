package runner

import (
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
	if _, ok := jobsDBOf(r).(*dockerJobsDB); !ok {
		t.Errorf("jobs db: %T", jobsDBOf(r))
	}
	if _, ok := swarmOf(r).(swarmEngine); !ok {
		t.Errorf("swarm: %T", swarmOf(r))
	}
	bare := &Runner{}
	if jobsDBOf(bare) != nil || swarmOf(bare) != nil {
		t.Errorf("a runner without services: %v, %v", jobsDBOf(bare), swarmOf(bare))
	}
	bare.setService(jobsDBService, &fakeDB{})
	if _, ok := jobsDBOf(bare).(*fakeDB); !ok {
		t.Errorf("a fake in its place: %T", jobsDBOf(bare))
	}
}
