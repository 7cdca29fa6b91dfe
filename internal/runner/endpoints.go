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
// so each reload loads the state both changes so far made.
type endpointSet struct {
	mu    sync.Mutex
	state endpointState
}

// newEndpointSet is the start state: the old pod in, the new one out.
func newEndpointSet() *endpointSet { return &endpointSet{state: endpointState{old: true}} }

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
// sent and acknowledged (0: not acknowledged, with err).
func (e *endpointSet) change(ctx context.Context, adm proxyAdmin, id string, change func(*endpointState)) (path string, sentNs, ackedNs int64, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	next := e.state
	change(&next)
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

// deregister is deregister (deregister.go) for a run with a new pod: at
// at, the old pod leaves whatever the new one's state.
func (e *endpointSet) deregister(ctx context.Context, adm proxyAdmin, id string, at time.Time, res record.Deregistration) record.Deregistration {
	if err := sleepUntil(ctx, at); err != nil {
		res.Error = err.Error()
		return res
	}
	path, sent, acked, err := e.change(ctx, adm, id, func(s *endpointState) { s.old = false })
	res.SentNs, res.AckedNs = sent, acked
	if path != "" {
		res.Via = reloadVia(path)
	}
	if err != nil {
		res.Error = err.Error()
	}
	return res
}
