package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/proxy"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// proxyAdmin is what a deregistration (proxy.deregister_after) needs of
// the engine beyond engine: write a file into a container and run a command
// in it. Caddy's admin API listens on the proxy container's loopback only
// (proxy.AdminAddress: the runner has no route to a container's ports),
// so the runner asks Caddy's own CLI, inside that container, to load the
// configuration without the replica. An engine without these methods
// cannot run such a scenario (the run is invalid, it never falls back).
type proxyAdmin interface {
	// CopyFileTo writes a file into a container.
	CopyFileTo(ctx context.Context, id, dst string, data []byte) error
	// Exec runs a command in a container, bounded by timeout, and returns
	// its exit code and output.
	Exec(ctx context.Context, id string, cmd []string, timeout time.Duration) (int, []byte, []byte, error)
}

var _ proxyAdmin = (*docker.Engine)(nil)

// deregisterConfigPath is where the configuration without the acted-on
// replica is written inside the proxy container, before the load starts.
const deregisterConfigPath = "/tmp/deregister.json"

// deregisterTimeout bounds the docker exec of one deregistration.
const deregisterTimeout = 10 * time.Second

// deregisterCmd is the command run in the proxy container: Caddy's CLI
// POSTs the file to the admin API's /load and exits 0 once Caddy answered
// that the new configuration runs.
var deregisterCmd = reloadCmd(deregisterConfigPath)

// reloadCmd is Caddy's CLI loading the configuration file at path.
func reloadCmd(path string) []string {
	return []string{"/app", "reload", "--config", path, "--address", proxy.AdminAddress}
}

// deregisterVia is how a deregistration is recorded (record.Deregistration.Via).
var deregisterVia = reloadVia(deregisterConfigPath)

// reloadVia records a reload of the configuration file at path.
func reloadVia(path string) string {
	return "docker exec <proxy> " + strings.Join(reloadCmd(path), " ") + " (POST /load to Caddy's admin API)"
}

// deregState is the deregistration of the acted-on replica
// (proxy.deregister_after) once scheduled: res delivers its outcome.
type deregState struct{ res chan record.Deregistration }

// deregisters tells whether this run deregisters the acted-on replica.
func (x *run) deregisters() bool {
	k := x.spec.Action.Kind
	return x.spec.Proxy.DeregisterAfter != nil && (k == scenarios.ActionRoll || k == scenarios.ActionTerminate) &&
		x.spec.Topology == scenarios.TopologyCaddy
}

// prepareDeregister writes the configuration without the acted-on replica
// into the proxy container (nothing when the run does not deregister).
func (x *run) prepareDeregister(ctx context.Context, c *docker.Container) error {
	if !x.deregisters() {
		return nil
	}
	adm, ok := x.r.eng.(proxyAdmin)
	if !ok {
		return invalidf("proxy.deregister_after: this engine cannot exec in the proxy container")
	}
	if x.newPodSpec() != nil {
		x.caps.newPod = &newPodState{eps: newEndpointSet()}
		return x.writeEndpointConfigs(ctx, adm, c.ID)
	}
	cfg, err := proxy.Deregistered(x.spec.Proxy, x.upstreams(), x.port(), replicaAlias(x.spec.Action.Replica))
	if err != nil {
		return err
	}
	return adm.CopyFileTo(ctx, c.ID, deregisterConfigPath, cfg)
}

// startDeregister schedules the deregistration of the acted-on replica
// proxy.deregister_after after sentNs (the stop signal's send time), in
// the background; finishDeregister collects it. Nothing without one.
func (x *run) startDeregister(ctx context.Context, sentNs int64) {
	if !x.deregisters() || x.obj.proxy == nil || x.caps.dereg != nil {
		return
	}
	ch := make(chan record.Deregistration, 1)
	x.caps.dereg = &deregState{res: ch}
	adm, _ := x.r.eng.(proxyAdmin)
	d := x.spec.Proxy.DeregisterAfter.D()
	res := record.Deregistration{Upstream: proxy.Upstream(replicaAlias(x.spec.Action.Replica), x.port()), AfterMs: ms(d), Via: deregisterVia}
	id := x.obj.proxy.ID
	at := time.Unix(0, sentNs).Add(d)
	if eps := x.endpoints(); eps != nil {
		due := eps.announce(at, func(s *endpointState) { s.old = false })
		go func() { ch <- eps.deregisterDue(ctx, adm, id, due, res) }()
		return
	}
	go func() { ch <- deregister(ctx, adm, id, at, res) }()
}

// deregister waits until at, then runs deregisterCmd in the proxy
// container and records when it was sent and acknowledged.
func deregister(ctx context.Context, adm proxyAdmin, id string, at time.Time, res record.Deregistration) record.Deregistration {
	if adm == nil {
		res.Error = "engine cannot exec in the proxy container"
		return res
	}
	if err := sleepUntil(ctx, at); err != nil {
		res.Error = err.Error()
		return res
	}
	res.SentNs = time.Now().UnixNano()
	code, stdout, stderr, err := adm.Exec(ctx, id, deregisterCmd, deregisterTimeout)
	done := time.Now().UnixNano()
	switch {
	case err != nil:
		res.Error = err.Error()
	case code != 0:
		res.Error = fmt.Sprintf("caddy reload exited %d: %s", code, lastLine(append(stdout, stderr...)))
	default:
		res.AckedNs = done
	}
	return res
}

// finishDeregister waits for the scheduled deregistration (bounded by its
// delay plus deregisterTimeout and slack), stores it in the action record
// and returns an invalid-run error when it did not succeed: without it
// the run does not measure what the scenario describes.
func (x *run) finishDeregister(ctx context.Context) error {
	d := x.caps.dereg
	if d == nil {
		return nil
	}
	bound := x.spec.Proxy.DeregisterAfter.D() + deregisterTimeout + 5*time.Second
	t := time.NewTimer(bound)
	defer t.Stop()
	var res record.Deregistration
	select {
	case res = <-d.res:
	case <-t.C:
		return invalidf("proxy deregistration not done within %s", bound)
	case <-ctx.Done():
		return ctx.Err()
	}
	if x.meta.Action != nil {
		x.meta.Action.Deregister = &res
	}
	if res.Error != "" {
		return invalidf("proxy deregistration of %s failed: %s", res.Upstream, res.Error)
	}
	return nil
}

// lastLine is the last non-empty line of b (for an error message).
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
