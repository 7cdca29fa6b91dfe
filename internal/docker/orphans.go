package docker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// CleanOptions select what [Engine.CleanOrphans] removes.
type CleanOptions struct {
	// All removes every object labelled LabelManaged=1, live owners'
	// included (the caller asks the user first).
	All bool
	// Match restricts the cleanup to objects that also carry these labels
	// (an empty value matches any value); nil means every managed object.
	Match map[string]string
}

// Skipped is an object CleanOrphans left in place.
type Skipped struct {
	// Kind is "container", "network" or "volume"; Name its name; Session
	// its LabelSession value.
	Kind, Name, Session string
	// Reason says why it was kept ("owner pid 42 on host h is alive").
	Reason string
}

// CleanReport is what CleanOrphans did.
type CleanReport struct {
	// Removed lists what was removed.
	Removed Removed
	// Why maps each session whose objects were removed to the reason
	// ("this session", "owner pid 42 on host h is gone", "--all").
	Why map[string]string
	// Skipped lists the objects kept because their owner is alive or
	// cannot be checked.
	Skipped []Skipped
}

// String is a multi-line summary: what was removed and why, then one line
// per skipped object.
func (r CleanReport) String() string {
	var b strings.Builder
	if r.Removed.Empty() {
		b.WriteString("nothing removed")
	} else {
		b.WriteString("removed " + r.Removed.String())
	}
	for _, s := range slices.Sorted(maps.Keys(r.Why)) {
		fmt.Fprintf(&b, "\n  session %s: %s", s, r.Why[s])
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, "\nskipped %d objects of live or unknown owners:", len(r.Skipped))
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "\n  %s %s (session %s): %s", s.Kind, s.Name, s.Session, s.Reason)
		}
	}
	return b.String()
}

// CleanOrphans removes the containers, then networks and volumes, labelled
// LabelManaged=1 (and opts.Match) that are orphaned: those of this
// Engine's own session, and those whose owner process is gone (same host,
// and its pid is not alive or now belongs to a process with another start
// time). Objects of a live owner, of another host, or without owner labels
// are listed in Skipped and kept, unless opts.All. Removal failures are
// joined and do not stop the cleanup.
func (e *Engine) CleanOrphans(ctx context.Context, opts CleanOptions) (CleanReport, error) {
	return e.cleanOrphans(ctx, opts, localProcs)
}

func (e *Engine) cleanOrphans(ctx context.Context, opts CleanOptions, p procs) (CleanReport, error) {
	objs, errs := e.managed(ctx, opts.Match)
	rep := CleanReport{Why: map[string]string{}}
	for _, o := range objs {
		session := o.labels[LabelSession]
		remove, why := e.decide(o.labels, opts.All, p)
		if !remove {
			rep.Skipped = append(rep.Skipped, Skipped{Kind: o.kind, Name: o.name, Session: session, Reason: why})
			continue
		}
		if err := e.remove(ctx, o, &rep.Removed); err != nil {
			errs = append(errs, err)
			continue
		}
		rep.Why[session] = why
	}
	return rep, errors.Join(errs...)
}

// Decide says whether an object of another kind carrying these labels
// (a Kubernetes namespace of platform kubernetes) is to be removed, and
// why, by the same rule as CleanOrphans' (all: --all).
func (e *Engine) Decide(labels map[string]string, all bool) (bool, string) {
	return e.decide(labels, all, localProcs)
}

// decide says whether an object with these labels is removed, and why.
func (e *Engine) decide(labels map[string]string, all bool, p procs) (bool, string) {
	switch {
	case labels[LabelSession] == e.session:
		return true, "this session"
	case all:
		return true, "--all"
	}
	o, known := ownerFromLabels(labels)
	return orphaned(o, known, e.owner, p)
}
