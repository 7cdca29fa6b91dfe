package swarm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moby/moby/api/types/swarm"
	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// Bounds of the lease protocol's waits.
const (
	// AcquireTimeout bounds Acquire, including the wait for another
	// session that is leaving the swarm.
	AcquireTimeout = 90 * time.Second
	// ReleaseTimeout bounds Release, the leave included.
	ReleaseTimeout = 60 * time.Second
	// pollEvery is the pause between two looks at a swarm in transition.
	pollEvery = 250 * time.Millisecond
)

// AdvertiseAddr and ListenAddr are what a swarm shutdownlab initialises
// uses: loopback only, so the single-node swarm talks to nothing else.
const (
	AdvertiseAddr = "127.0.0.1"
	ListenAddr    = "127.0.0.1:2377"
)

// Lease is a session's hold on the engine's swarm (see the package
// documentation). Release it when done, on every path.
type Lease struct {
	e *Engine
	// Created is true when this session initialised the swarm.
	Created bool
	// NodeID is the engine's swarm node id.
	NodeID string
	// ClusterID is the swarm's id.
	ClusterID string
	released  bool
}

// gone is docker.OwnerGone from this process.
func gone(o docker.Owner) bool {
	g, _ := docker.OwnerGone(o, docker.CurrentOwner())
	return g
}

// Acquire makes sure the engine is a swarm manager and takes this
// session's lease on it: it initialises a single-node swarm (advertised
// and listening on loopback) when the engine is in none, waits (bounded)
// for a swarm another session is leaving to be gone, and refuses an
// engine that is a worker or whose swarm is locked or in error.
func (e *Engine) Acquire(ctx context.Context) (*Lease, error) {
	ctx, cancel := context.WithTimeout(ctx, AcquireTimeout)
	defer cancel()
	created := false
	for {
		info, err := e.cli.Info(ctx, client.InfoOptions{})
		if err != nil {
			return nil, fmt.Errorf("swarm: docker info: %w", err)
		}
		sw := info.Info.Swarm
		switch sw.LocalNodeState {
		case swarm.LocalNodeStateInactive:
			ok, err := e.initSwarm(ctx)
			if err != nil {
				return nil, err
			}
			created = created || ok
			continue
		case swarm.LocalNodeStateActive:
			if !sw.ControlAvailable {
				return nil, errors.New("swarm: this engine is a swarm worker; shutdownlab needs a manager (run it against a manager node)")
			}
		case swarm.LocalNodeStatePending:
			if err := pause(ctx, "swarm: node still joining"); err != nil {
				return nil, err
			}
			continue
		default:
			return nil, fmt.Errorf("swarm: engine's swarm state is %q (%s); unlock or repair it first", sw.LocalNodeState, sw.Error)
		}
		done, err := e.takeLease(ctx, created)
		if err != nil {
			return nil, e.undoInit(created, err)
		}
		if done {
			return &Lease{e: e, Created: created, NodeID: sw.NodeID, ClusterID: sw.Cluster.ID}, nil
		}
	}
}

// undoInit leaves a swarm this call initialised when its lease could not
// be taken, so a failed Acquire leaves the engine as it found it (unless
// another session holds a lease or a service on it by then); err is
// returned with the leave's own error.
func (e *Engine) undoInit(created bool, err error) error {
	if !created {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), ReleaseTimeout)
	defer cancel()
	// Another session may have joined in between: then it is its swarm
	// now (it leaves it, or clean does).
	res, ierr := e.cli.SwarmInspect(ctx, client.SwarmInspectOptions{})
	others, oerr := e.othersOnSwarm(ctx)
	if ierr != nil || oerr != nil || others || len(readState(res.Swarm.Spec.Labels, gone).Leases) > 0 {
		return errors.Join(err, ierr, oerr)
	}
	if _, lerr := e.cli.SwarmLeave(ctx, client.SwarmLeaveOptions{Force: true}); lerr != nil {
		return errors.Join(err, fmt.Errorf("swarm leave --force (undoing the init): %w", lerr))
	}
	return err
}

// initSwarm initialises a single-node swarm; false (no error) when another
// client initialised one first.
func (e *Engine) initSwarm(ctx context.Context) (bool, error) {
	_, err := e.cli.SwarmInit(ctx, client.SwarmInitOptions{ListenAddr: ListenAddr, AdvertiseAddr: AdvertiseAddr})
	switch {
	case err == nil:
		return true, nil
	case isAlreadyInSwarm(err):
		return false, nil
	}
	return false, fmt.Errorf("swarm init --advertise-addr %s --listen-addr %s: %w", AdvertiseAddr, ListenAddr, err)
}

// takeLease adds this session's lease (and the created mark) to the
// cluster spec. done is false when it must be tried again: the spec
// changed under it, or another session is leaving the swarm (then it
// paused first).
func (e *Engine) takeLease(ctx context.Context, created bool) (bool, error) {
	res, err := e.cli.SwarmInspect(ctx, client.SwarmInspectOptions{})
	if err != nil {
		return false, fmt.Errorf("swarm inspect: %w", err)
	}
	sw := res.Swarm
	st := readState(sw.Spec.Labels, gone)
	if st.Leaving != "" && !st.LeaverGone {
		return false, pause(ctx, "swarm: waiting for session "+st.Leaving+" to leave the swarm")
	}
	spec := sw.Spec
	spec.Labels = withLease(spec.Labels, e.d.Session(), e.d.Owner(), created)
	_, err = e.cli.SwarmUpdate(ctx, client.SwarmUpdateOptions{Version: sw.Version, Spec: spec})
	switch {
	case err == nil:
		return true, nil
	case isOutOfSequence(err):
		return false, nil
	}
	return false, fmt.Errorf("swarm update (lease of session %s): %w", e.d.Session(), err)
}

// pause waits pollEvery; on ctx's end it returns an error naming what it
// waited for.
func pause(ctx context.Context, what string) error {
	t := time.NewTimer(pollEvery)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
}

// Release drops the session's lease; when shutdownlab created the swarm
// and no other live session holds a lease, it leaves the swarm (--force).
// left tells whether it did. Release is bounded by ReleaseTimeout and runs
// even when ctx is already cancelled (an interrupted run still cleans up).
// A second call does nothing.
func (l *Lease) Release(ctx context.Context) (left bool, err error) {
	if l == nil || l.released {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReleaseTimeout)
	defer cancel()
	e := l.e
	for {
		res, err := e.cli.SwarmInspect(ctx, client.SwarmInspectOptions{})
		if err != nil {
			if isNotInSwarm(err) { // someone left it already
				l.released = true
				return false, nil
			}
			return false, fmt.Errorf("swarm inspect: %w", err)
		}
		others, err := e.othersOnSwarm(ctx)
		if err != nil {
			return false, err
		}
		sw := res.Swarm
		spec := sw.Spec
		var leave bool
		spec.Labels, leave = released(spec.Labels, e.d.Session(), e.d.Owner(), gone, !others)
		_, err = e.cli.SwarmUpdate(ctx, client.SwarmUpdateOptions{Version: sw.Version, Spec: spec})
		if isOutOfSequence(err) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("swarm update (release of session %s): %w", e.d.Session(), err)
		}
		l.released = true
		if !leave {
			return false, nil
		}
		if _, err := e.cli.SwarmLeave(ctx, client.SwarmLeaveOptions{Force: true}); err != nil {
			return false, fmt.Errorf("swarm leave --force: %w", err)
		}
		return true, nil
	}
}

// isNotInSwarm matches the engine's answer to a swarm call on an engine
// that is in no swarm.
func isNotInSwarm(err error) bool {
	return err != nil && (errorContains(err, "not a swarm manager") || errorContains(err, "not part of a swarm"))
}

// othersOnSwarm tells whether a service other than this session's is on
// the swarm: a swarm with one is never left, whoever created it.
func (e *Engine) othersOnSwarm(ctx context.Context) (bool, error) {
	res, err := e.cli.ServiceList(ctx, client.ServiceListOptions{})
	if err != nil {
		return false, fmt.Errorf("service list: %w", err)
	}
	for _, s := range res.Items {
		if s.Spec.Labels[docker.LabelSession] != e.d.Session() {
			return true, nil
		}
	}
	return false, nil
}
