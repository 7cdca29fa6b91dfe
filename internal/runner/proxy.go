package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/proxy"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// caddyConfigEnv is the variable cmd/caddy reads its JSON configuration
// from (see cmd/caddy/main.go).
const caddyConfigEnv = "SHUTDOWNLAB_CADDY_CONFIG"

// proxyAlias is Caddy's DNS name on the scenario network.
const proxyAlias = "proxy"

// caddyReadyLine is what Caddy logs once its configuration is running.
const caddyReadyLine = "serving initial configuration"

// agentTarget is the address the load agent sends its requests to.
func (x *run) agentTarget() string {
	if x.spec.Platform == scenarios.PlatformKubernetes {
		return kubeAgentTarget(x.port()) // the Service
	}
	if x.spec.Topology == scenarios.TopologyCaddy {
		return fmt.Sprintf("%s:%d", proxyAlias, proxy.Port)
	}
	return fmt.Sprintf("%s:%d", replicaAlias(0), x.port())
}

// upstreams are the proxy's upstream aliases: every replica, plus the slot
// of a roll's replacement (down until it starts; the active health check
// finds it).
func (x *run) upstreams() []string {
	n := x.spec.Replicas
	if a := x.spec.Action; a.Kind == scenarios.ActionRoll && a.Roll.Replacement != scenarios.ReplaceNone {
		n++
	}
	var ups []string
	for i := range n {
		ups = append(ups, replicaAlias(i))
	}
	return ups
}

// startProxy starts Caddy for topology caddy (nothing otherwise): the
// generated configuration is saved as proxy.json in the run directory,
// recorded in the Meta, and passed to the container in its environment.
// It waits until Caddy logs that its configuration runs.
func (x *run) startProxy(ctx context.Context, labels map[string]string) error {
	if x.spec.Topology != scenarios.TopologyCaddy {
		return nil
	}
	cfg, err := proxy.Config(x.spec.Proxy, x.upstreams(), x.port(), x.proxyOptions()...)
	if err != nil {
		return err
	}
	c, err := x.runCaddy(ctx, labels, cfg)
	if err != nil {
		return err
	}
	return x.prepareDeregister(ctx, c)
}

// runCaddy starts Caddy with configuration cfg on the run's network, on
// every platform: cfg is saved as proxy.json in the run directory, its
// sha256 recorded in the Meta with topology caddy, and passed to the
// container in its environment. It returns once Caddy logs that its
// configuration runs (bounded by proxyReadyTimeout: the run is invalid
// after that).
func (x *run) runCaddy(ctx context.Context, labels map[string]string, cfg []byte) (*docker.Container, error) {
	if err := os.WriteFile(filepath.Join(x.dir, resultdir.ProxyConfigFile), cfg, 0o644); err != nil {
		return nil, fmt.Errorf("proxy config: %w", err)
	}
	sum := sha256.Sum256(cfg)
	x.meta.Topology = record.TopologyCaddy
	x.meta.ProxyConfig = resultdir.ProxyConfigFile
	x.meta.ProxyConfigSHA256 = hex.EncodeToString(sum[:])
	ref, err := x.r.imgs.Caddy(ctx)
	if err != nil {
		return nil, fmt.Errorf("caddy image: %w", err)
	}
	c, err := x.r.eng.Run(ctx, docker.ContainerSpec{
		Name: x.name + "-proxy", Image: ref, Labels: labels, Network: x.obj.network,
		Aliases: []string{proxyAlias}, Env: []string{caddyConfigEnv + "=" + string(cfg), "HOME=/tmp", "XDG_CONFIG_HOME=/tmp", "XDG_DATA_HOME=/tmp"},
	})
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	x.obj.mu.Lock()
	x.obj.proxy = c
	x.obj.mu.Unlock()
	if err := x.r.eng.WaitLog(ctx, c.ID, caddyReadyLine, proxyReadyTimeout); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, invalidf("proxy never became ready: %v", err)
	}
	return c, nil
}

// collectProxy saves Caddy's log as proxy.log in the run directory.
func (x *run) collectProxy(ctx context.Context) error {
	if x.obj.proxy == nil {
		return nil
	}
	stdout, stderr, err := x.r.eng.LogsAll(ctx, x.obj.proxy.ID)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(x.dir, resultdir.ProxyLogFile), append(stdout, stderr...), 0o644)
}

// agentAfterReplicas tells whether the load agent must start only once
// every replica is up: behind Caddy without active health checks
// (proxy.health_uri none), Caddy sends requests to every upstream from the
// start, and the agent's ready poll through the proxy passes as soon as one
// replica answers, so a replica still starting would fail the first
// requests (measured: 502 "no such host" in the load's first 30 ms). A
// load on services (ServiceDriver: the jobs load) starts late too, so
// every replica's worker is fetching when the first job goes in.
func (x *run) agentAfterReplicas() bool {
	return x.load.hasServices() || x.proxySendsToAll()
}

// proxySendsToAll: behind Caddy without active health checks, every
// upstream gets requests from the proxy's start, ready or not.
func (x *run) proxySendsToAll() bool {
	return x.spec.Topology == scenarios.TopologyCaddy && x.spec.Proxy.HealthURI == "none"
}
