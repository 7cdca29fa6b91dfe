// Package swarm is shutdownlab's runtime layer over Docker Swarm mode: it
// makes sure the engine is a (single-node, or existing) swarm manager for
// as long as a session needs it, creates attachable overlay networks and
// replicated services, rolls a service (docker service update), reads its
// tasks with the engine's own states, timestamps, container ids and exit
// codes, follows its containers' engine events, waits for a rollout to
// converge and removes everything, every wait bounded.
//
// Every network and service it creates carries the labels of package
// docker (LabelManaged=1, the session and the owner process), and so does
// every task container (the service's container labels), so
// `shutdownlab clean` finds what a killed run left: [Engine.CleanOrphans]
// removes the services whose owner is gone before docker.CleanOrphans
// removes their networks.
//
// # Who leaves the swarm
//
// A swarm is engine-wide state shared by every session on the engine, so
// it is reference-counted in the swarm itself: each session that uses the
// swarm holds a lease, a label shutdownlab.swarm.lease.<session> on the
// cluster spec naming its owner process (host, pid, start time), and a
// swarm that shutdownlab initialised carries shutdownlab.swarm.created.
// Every change of these labels is a compare-and-swap on the cluster
// spec's version (SwarmUpdate refuses a stale version), so two sessions
// never both believe they hold the last lease. On release a session drops
// its lease and those of owners that are gone; when the swarm was created
// by shutdownlab and no live lease is left, it marks the swarm
// shutdownlab.swarm.leaving (same swap) and leaves it with --force. A
// session that finds the leaving mark waits for the swarm to be gone and
// initialises a new one (or, when the leaver's process is gone, clears
// the mark and stays). A swarm shutdownlab did not create is never left:
// the lease labels are removed again and the engine is as it was found.
// So "we created it" is kept per swarm, not per session: when session A
// initialised the swarm and session B still uses it at A's end, A leaves
// it running and B, the last one out, leaves it.
package swarm

import (
	"fmt"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// Labels this package sets on the swarm's cluster spec.
const (
	// LabelCreated marks a swarm shutdownlab initialised; its value is
	// the lease value of the session that did.
	LabelCreated = "shutdownlab.swarm.created"
	// LabelLeasePrefix + session is a session's lease; its value is the
	// owner process (see encodeOwner).
	LabelLeasePrefix = "shutdownlab.swarm.lease."
	// LabelLeaving marks a swarm a session is leaving: "<session> <owner>".
	LabelLeaving = "shutdownlab.swarm.leaving"
)

// Labels Docker sets on a service's task containers, and this package
// reads.
const (
	LabelServiceID = "com.docker.swarm.service.id"
	LabelTaskID    = "com.docker.swarm.task.id"
)

// Engine is the swarm side of one docker.Engine: the same client,
// session and owner labels.
type Engine struct {
	d   *docker.Engine
	cli *client.Client
}

// New wraps a connected docker.Engine.
func New(d *docker.Engine) *Engine { return &Engine{d: d, cli: d.Client()} }

// Docker returns the underlying docker.Engine.
func (e *Engine) Docker() *docker.Engine { return e.d }

// isOutOfSequence matches the engine's refusal of a spec update made
// against a stale version (another client changed it first).
func isOutOfSequence(err error) bool {
	return err != nil && errorContains(err, "out of sequence")
}

// isAlreadyInSwarm matches SwarmInit's refusal on an engine that already
// is in a swarm (another session initialised it first).
func isAlreadyInSwarm(err error) bool {
	return err != nil && errorContains(err, "already part of a swarm")
}

// notFoundOK drops a not-found error: removing what is already gone is
// done.
func notFoundOK(err error, what string) error {
	if err == nil || cerrdefs.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

func errorContains(err error, s string) bool { return strings.Contains(err.Error(), s) }
