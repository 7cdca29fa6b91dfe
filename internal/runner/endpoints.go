package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/proxy"
	"github.com/shutdownlab/shutdownlab/record"
)

// endpointState is which of a termination's two pods are among the
// proxy's upstreams: the old (acted-on) one and the new one. The other
// replicas always are.
type endpointState struct{ old, new bool }

// endpointFiles are the proxy configurations of a run with a new pod,
// one per state it can reach, written into the proxy container before
// the load starts (so a change costs one reload, as a deregistration
// alone does). The start state {old, not new} is the initial
// configuration.
var endpointFiles = map[endpointState]string{
	{old: false, new: false}: deregisterConfigPath,
	{old: true, new: true}:   "/tmp/endpoints-joined.json",
	{old: false, new: true}:  "/tmp/endpoints-replaced.json",
}

// endpointSet is the proxy's endpoint state during a termination with a
// new pod: the old pod leaves (the deregistration) and the new one joins
// (its registration) in whichever order they come, one reload at a time,
// so each reload loads the state both changes so far made. The leaving is
// announced when it is scheduled (announce); a joining that starts up to
// coalesceWindow before it waits for its moment and carries it in the same
// reload, so two changes due together are not run one after the other.
type endpointSet struct {
	mu    sync.Mutex // held for a reload
	state endpointState
	// due is the announced leaving, nil once a reload took it.
	due *dueChange
}

// coalesceWindow is how long before an announced change a reload may start
// and still wait for it: with maxUnavailable 0 the new pod is ready at the
// deletion, so its joining falls milliseconds before the leaving, and a
// reload takes 0.3-0.8 s on a 2-core machine. The joining is delayed by at
// most this; the leaving never comes early.
const coalesceWindow = 50 * time.Millisecond

// dueChange is an announced change and, once a reload carried it, that
// reload's outcome (both read and written under endpointSet.mu).
type dueChange struct {
	at              time.Time
	apply           func(*endpointState)
	done            bool
	path            string
	sentNs, ackedNs int64
	err             error
}

// newEndpointSet is the start state: the old pod in, the new one out.
func newEndpointSet() *endpointSet { return &endpointSet{state: endpointState{old: true}} }

// announce schedules change for at (see deregisterDue).
func (e *endpointSet) announce(at time.Time, change func(*endpointState)) *dueChange {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.due = &dueChange{at: at, apply: change}
	return e.due
}

// writeEndpointConfigs writes endpointFiles into the proxy container c.
func (x *run) writeEndpointConfigs(ctx context.Context, adm proxyAdmin, id string) error {
	old, np := replicaAlias(x.spec.Action.Replica), replicaAlias(x.spec.Replicas)
	for st, path := range endpointFiles {
		var ups []string
		for _, u := range x.upstreams() {
			if u != old || st.old {
				ups = append(ups, u)
			}
		}
		if st.new {
			ups = append(ups, np)
		}
		cfg, err := proxy.Config(x.spec.Proxy, ups, x.port(), x.proxyOptions()...)
		if err != nil {
			return err
		}
		if err := adm.CopyFileTo(ctx, id, path, cfg); err != nil {
			return fmt.Errorf("proxy configuration %s: %w", path, err)
		}
	}
	return nil
}

// change moves the set to the state change makes of it and reloads the
// proxy with that state's file (path); it returns when the reload was
// sent and acknowledged (0: not acknowledged, with err). An announced
// change due within coalesceWindow is waited for and carried along.
func (e *endpointSet) change(ctx context.Context, adm proxyAdmin, id string, change func(*endpointState)) (path string, sentNs, ackedNs int64, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	carried := e.due
	if carried == nil || time.Until(carried.at) > coalesceWindow {
		carried = nil
	} else if err := sleepUntil(ctx, carried.at); err != nil {
		return "", 0, 0, err
	}
	next := e.state
	change(&next)
	if carried != nil {
		carried.apply(&next)
		e.due = nil
	}
	path, sentNs, ackedNs, err = e.reload(ctx, adm, id, next)
	if carried != nil {
		carried.done = true
		carried.path, carried.sentNs, carried.ackedNs, carried.err = path, sentNs, ackedNs, err
	}
	return path, sentNs, ackedNs, err
}

// reload loads state next's file into the proxy; on success the set is
// in state next. Called with e.mu held.
func (e *endpointSet) reload(ctx context.Context, adm proxyAdmin, id string, next endpointState) (path string, sentNs, ackedNs int64, err error) {
	path, ok := endpointFiles[next]
	if !ok {
		return "", 0, 0, fmt.Errorf("no proxy configuration for %+v", next)
	}
	sentNs = time.Now().UnixNano()
	code, stdout, stderr, err := adm.Exec(ctx, id, reloadCmd(path), deregisterTimeout)
	switch {
	case err != nil:
		return path, sentNs, 0, err
	case code != 0:
		return path, sentNs, 0, fmt.Errorf("caddy reload exited %d: %s", code, lastLine(slices.Concat(stdout, stderr)))
	}
	e.state = next
	return path, sentNs, time.Now().UnixNano(), nil
}

// deregisterDue is deregister (deregister.go) for a run with a new pod:
// at d's moment the old pod leaves whatever the new one's state, in a
// reload of its own unless the joining's reload carried it.
func (e *endpointSet) deregisterDue(ctx context.Context, adm proxyAdmin, id string, d *dueChange, res record.Deregistration) record.Deregistration {
	if err := sleepUntil(ctx, d.at); err != nil {
		res.Error = err.Error()
		return res
	}
	e.mu.Lock()
	if !d.done {
		if e.due == d {
			e.due = nil
		}
		next := e.state
		d.apply(&next)
		d.path, d.sentNs, d.ackedNs, d.err = e.reload(ctx, adm, id, next)
		d.done = true
	}
	path, sent, acked, err := d.path, d.sentNs, d.ackedNs, d.err
	e.mu.Unlock()
	res.SentNs, res.AckedNs = sent, acked
	if path != "" {
		res.Via = reloadVia(path)
	}
	if err != nil {
		res.Error = err.Error()
	}
	return res
}
