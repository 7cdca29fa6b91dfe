package swarm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/moby/moby/api/types/swarm"
	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// cleanServiceBound bounds the wait for one orphaned service's containers.
const cleanServiceBound = 60 * time.Second

// CleanReport is what CleanOrphans did.
type CleanReport struct {
	// Services lists the services removed; Kept those of live owners,
	// each with the reason.
	Services []string
	Kept     []string
	// StaleLeases counts the leases of gone owners dropped; Left tells
	// that the swarm was left (shutdownlab created it and no live lease
	// remained).
	StaleLeases int
	Left        bool
}

// String is a short summary, "" when there was nothing to do.
func (r CleanReport) String() string {
	var parts []string
	if len(r.Services) > 0 {
		parts = append(parts, fmt.Sprintf("removed %d swarm services (%s)", len(r.Services), strings.Join(r.Services, ", ")))
	}
	for _, k := range r.Kept {
		parts = append(parts, "kept swarm service "+k)
	}
	if r.StaleLeases > 0 {
		parts = append(parts, fmt.Sprintf("dropped %d stale swarm leases", r.StaleLeases))
	}
	if r.Left {
		parts = append(parts, "left the swarm shutdownlab had created")
	}
	return strings.Join(parts, "\n")
}

// CleanOrphans removes the services labelled shutdownlab=1 whose owner is
// gone (or of this engine's own session), waiting for their containers,
// then drops the swarm leases of gone owners and, when shutdownlab created
// the swarm and no live lease is left, leaves it. Run it before
// docker.Engine.CleanOrphans: a network is removable only once the
// services on it are gone. An engine in no swarm has nothing to clean.
func (e *Engine) CleanOrphans(ctx context.Context) (CleanReport, error) {
	var rep CleanReport
	info, err := e.cli.Info(ctx, client.InfoOptions{})
	if err != nil {
		return rep, fmt.Errorf("docker info: %w", err)
	}
	if sw := info.Info.Swarm; sw.LocalNodeState != swarm.LocalNodeStateActive || !sw.ControlAvailable {
		return rep, nil
	}
	f := client.Filters{}
	f.Add("label", docker.LabelManaged+"=1")
	svcs, err := e.cli.ServiceList(ctx, client.ServiceListOptions{Filters: f})
	if err != nil {
		return rep, fmt.Errorf("service list: %w", err)
	}
	var errs []error
	self := docker.CurrentOwner()
	for _, s := range svcs.Items {
		l := s.Spec.Labels
		remove, why := l[docker.LabelSession] == e.d.Session(), "this session"
		if !remove {
			o, ok := docker.OwnerFromLabels(l)
			if !ok {
				remove, why = false, "no owner recorded"
			} else {
				remove, why = docker.OwnerGone(o, self)
			}
		}
		if !remove {
			rep.Kept = append(rep.Kept, s.Spec.Name+": "+why)
			continue
		}
		if err := e.RemoveService(ctx, s.ID, cleanServiceBound); err != nil {
			errs = append(errs, err)
			continue
		}
		rep.Services = append(rep.Services, s.Spec.Name)
	}
	stale, left, err := e.dropStaleLeases(ctx)
	rep.StaleLeases, rep.Left = stale, left
	return rep, errors.Join(append(errs, err)...)
}

// dropStaleLeases removes the leases of gone owners (and a gone leaver's
// mark) and leaves a shutdownlab-created swarm no live lease holds.
func (e *Engine) dropStaleLeases(ctx context.Context) (int, bool, error) {
	for {
		res, err := e.cli.SwarmInspect(ctx, client.SwarmInspectOptions{})
		if err != nil {
			return 0, false, fmt.Errorf("swarm inspect: %w", err)
		}
		sw := res.Swarm
		before := readState(sw.Spec.Labels, gone)
		if len(before.Leases) == 0 && !before.Created && before.Leaving == "" {
			return 0, false, nil
		}
		if before.Leaving != "" && !before.LeaverGone {
			return 0, false, nil // a live session is leaving it
		}
		others, err := e.othersOnSwarm(ctx)
		if err != nil {
			return 0, false, err
		}
		// Release a lease nobody holds: drops the stale ones, and leaves
		// when none is alive and no service is left.
		labels, leave := released(sw.Spec.Labels, e.d.Session(), e.d.Owner(), gone, !others)
		after := readState(labels, gone)
		stale := len(before.Leases) - len(after.Leases)
		if stale == 0 && !leave && before.Leaving == "" {
			return 0, false, nil
		}
		if !leave {
			delete(labels, LabelLeaving)
		}
		spec := sw.Spec
		spec.Labels = labels
		_, err = e.cli.SwarmUpdate(ctx, client.SwarmUpdateOptions{Version: sw.Version, Spec: spec})
		if isOutOfSequence(err) {
			continue
		}
		if err != nil {
			return 0, false, fmt.Errorf("swarm update (stale leases): %w", err)
		}
		if !leave {
			return stale, false, nil
		}
		if _, err := e.cli.SwarmLeave(ctx, client.SwarmLeaveOptions{Force: true}); err != nil {
			return stale, false, fmt.Errorf("swarm leave --force: %w", err)
		}
		return stale, true, nil
	}
}
