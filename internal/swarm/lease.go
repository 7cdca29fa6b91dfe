package swarm

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// encodeOwner is an owner as a lease value: "host|pid|start".
func encodeOwner(o docker.Owner) string {
	return fmt.Sprintf("%s|%d|%s", o.Host, o.PID, o.Start)
}

// decodeOwner reads a lease value; ok is false when it is not one.
func decodeOwner(v string) (docker.Owner, bool) {
	f := strings.SplitN(v, "|", 3)
	if len(f) != 3 || f[0] == "" {
		return docker.Owner{}, false
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid <= 0 {
		return docker.Owner{}, false
	}
	return docker.Owner{Host: f[0], PID: pid, Start: f[2]}, true
}

// goneFunc says whether an owner's process is gone (docker.OwnerGone with
// this process as self; tests replace it).
type goneFunc func(docker.Owner) bool

// leaseState is what the cluster spec's labels say about shutdownlab's
// use of the swarm.
type leaseState struct {
	// Created: shutdownlab initialised this swarm.
	Created bool
	// Leases maps each lease's session to its owner value.
	Leases map[string]string
	// Leaving is the session leaving the swarm ("" when none); LeaverGone
	// tells that its process is gone (the leave never happened).
	Leaving    string
	LeaverGone bool
}

// readState reads the lease labels.
func readState(labels map[string]string, gone goneFunc) leaseState {
	s := leaseState{Leases: map[string]string{}}
	_, s.Created = labels[LabelCreated]
	for k, v := range labels {
		if sess, ok := strings.CutPrefix(k, LabelLeasePrefix); ok {
			s.Leases[sess] = v
		}
	}
	if v, ok := labels[LabelLeaving]; ok {
		sess, owner, _ := strings.Cut(v, " ")
		s.Leaving = sess
		if sess == "" {
			s.Leaving = "?"
		}
		o, ok := decodeOwner(owner)
		s.LeaverGone = !ok || gone(o)
	}
	return s
}

// withLease returns labels plus session's lease (and the created mark
// when created), without a stale leaving mark.
func withLease(labels map[string]string, session string, owner docker.Owner, created bool) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	delete(out, LabelLeaving)
	out[LabelLeasePrefix+session] = encodeOwner(owner)
	if created {
		out[LabelCreated] = encodeOwner(owner)
	}
	return out
}

// released returns labels without session's lease and without the leases
// of owners that are gone; leave is true when the swarm was created by
// shutdownlab, no lease is left and mayLeave (no service but the
// session's own is on the swarm), and then the labels carry the leaving
// mark of session.
func released(labels map[string]string, session string, owner docker.Owner, gone goneFunc, mayLeave bool) (out map[string]string, leave bool) {
	out = maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	delete(out, LabelLeasePrefix+session)
	left := 0
	for k, v := range out {
		if _, ok := strings.CutPrefix(k, LabelLeasePrefix); !ok {
			continue
		}
		if o, ok := decodeOwner(v); !ok || gone(o) {
			delete(out, k)
			continue
		}
		left++
	}
	if _, created := out[LabelCreated]; created && left == 0 && mayLeave {
		out[LabelLeaving] = session + " " + encodeOwner(owner)
		return out, true
	}
	return out, false
}
