package runner

import (
	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// A session service is what one capability needs once per Runner, beside
// the Docker engine every run uses: the job queue's database (load.kind
// jobs), Swarm's orchestrator (platform swarm). The capability's own file
// registers how to make it from the engine (sessionServices; from a
// capability package, RegisterSessionService), New makes
// every one, and the capability reads its own back through a typed
// accessor (swarmOf; a capability package, through Session.Service:
// capabilities/queuejobs' databaseOf); tests put a fake in its place
// (Runner.setService). So Runner has no field per capability.

// serviceFactory makes a session service from the runner's engine; log
// is where it reports its progress (image builds).
type serviceFactory func(eng *docker.Engine, log progressWriter) any

// sessionServices are the session services, by name.
var sessionServices = newRegistry[string, serviceFactory]("session service")

// newServices makes every registered session service on eng.
func newServices(eng *docker.Engine, log progressWriter) map[string]any {
	out := map[string]any{}
	for _, name := range sessionServices.keys() {
		mk, _ := sessionServices.lookup(name)
		out[name] = mk(eng, log)
	}
	return out
}

// serviceOf returns r's session service name as a T; the zero T (nil for
// an interface) when r has none, as a runner on a fake engine may not.
func serviceOf[T any](r *Runner, name string) T {
	v, _ := r.services[name].(T)
	return v
}

// setService puts v in the place of session service name (a test's fake).
func (r *Runner) setService(name string, v any) {
	if r.services == nil {
		r.services = map[string]any{}
	}
	r.services[name] = v
}
