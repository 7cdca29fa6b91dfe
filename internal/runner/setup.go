package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// setUp has platform p create the run's network and start the replicas,
// the proxy and the agent, within a bound: the ready wait plus setupSlack.
func (x *run) setUp(ctx context.Context, p platform) error {
	bound := max(x.readyTimeout(), proxyReadyTimeout) + setupSlack
	sctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	err := p.startAll(sctx)
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		return invalidf("set-up (%s) took longer than %s: %v", p.setUpParts(), bound, err)
	}
	return err
}

// startAll is the Docker platform's set-up, without its bound.
func (x *run) startAll(ctx context.Context) error {
	eng := x.r.eng
	labels := map[string]string{"shutdownlab.run": x.name, "shutdownlab.scenario": x.spec.Name}
	if _, err := eng.CreateNetwork(ctx, x.name, labels); err != nil {
		return err
	}
	x.obj.network = x.name
	x.obj.labels = labels
	var err error
	if x.target.ref, x.target.runtime, err = x.r.imgs.Target(ctx, imageTarget(x.spec.Target)); err != nil {
		return err
	}
	if err := x.readImageEnv(ctx); err != nil {
		return err
	}
	// Services (the jobs load's database) are up before any replica.
	if err := x.load.startServices(ctx, x); err != nil {
		return err
	}
	// Container start is the slow part of set-up (~0.8 s each on a
	// fuse-overlayfs engine), so replicas, the proxy and the agent start
	// together; the agent polls /readyz itself (through the proxy, for
	// topology caddy) before its load begins. Each goroutine ends with
	// ctx (bounded by setUp).
	agentErr := make(chan error, 1)
	late := x.agentAfterReplicas()
	if !late {
		go func() { agentErr <- x.startAgent(ctx, labels) }()
	}
	proxyErr := make(chan error, 1)
	go func() { proxyErr <- x.startProxy(ctx, labels) }()
	err = x.startReplicas(ctx, labels)
	if late {
		if err != nil {
			agentErr <- nil
		} else {
			go func() { agentErr <- x.startAgent(ctx, labels) }()
		}
	}
	if perr := <-proxyErr; err == nil {
		err = perr
	}
	if aerr := <-agentErr; err == nil {
		err = aerr
	}
	return err
}

// readyTimeout is target.ready_timeout: how long a replica may take to be
// ready (its "up" line; the load's poll of the ready path).
func (x *run) readyTimeout() time.Duration {
	if d := x.spec.Target.ReadyTimeout.D(); d > 0 {
		return d
	}
	return scenarios.DefaultReadyTimeout.D()
}

// startBound is how long the load's start line may take once everything
// started: the agent's own ready wait ends first, then its exit says why.
func (x *run) startBound() time.Duration { return x.readyTimeout() + startSlack }

// port is the target's port: the image's declared protocol port (8080 for
// the built-in targets).
func (x *run) port() int {
	if p := x.spec.Target.Protocol.Port; p > 0 {
		return p
	}
	return targetPort
}

// readImageEnv reads a user image's own environment, and says once per
// image and setting (on the progress output) which of its variables the
// scenario's target.env overrides: the image then does not run exactly as
// it ships, by the user's choice.
func (x *run) readImageEnv(ctx context.Context) error {
	if x.spec.Target.Image == "" {
		return nil
	}
	info, err := x.r.eng.ImageInfo(ctx, x.target.ref)
	if err != nil {
		return err
	}
	x.target.imageEnv = info.Env
	over := envOverrides(info.Env, x.spec.Target.Env)
	if len(over) == 0 {
		return nil
	}
	var parts []string
	for _, k := range sortedKeys(over) {
		parts = append(parts, fmt.Sprintf("%s=%s (image: %s=%s)", k, x.spec.Target.Env[k], k, over[k]))
	}
	note := fmt.Sprintf("note: target.env overrides the environment image %s ships with: %s", x.target.ref, strings.Join(parts, ", "))
	if !x.r.noted[note] {
		if x.r.noted == nil {
			x.r.noted = map[string]bool{}
		}
		x.r.noted[note] = true
		x.r.opts.Progress.Logf("%s", note)
	}
	return nil
}
