package runner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/proxy"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// newPodSlack bounds the wait for a new pod's goroutine beyond its own
// readiness timeout, propagation delay and reload.
const newPodSlack = 10 * time.Second

// newPodRun is a termination's new pod (action.terminate.new_pod) while
// it runs: its record, which its goroutine alone writes until done is
// closed, and the moment the old pod's deletion may wait for.
type newPodRun struct {
	spec      scenarios.NewPod
	res       record.NewPod
	available chan struct{} // closed once available; never when it is not
	done      chan struct{} // closed when the goroutine returned
}

// newPodState is a termination's new pod in a run: the proxy's endpoint
// set, when the run deregisters (prepareDeregister makes it at set-up),
// and the pod's run, once started (beforeDeletion); either may be nil.
type newPodState struct {
	eps *endpointSet
	run *newPodRun
}

// endpoints is the new pod's endpoint set (nil: none).
func (x *run) endpoints() *endpointSet {
	if x.caps.newPod == nil {
		return nil
	}
	return x.caps.newPod.eps
}

// newPodSpec is the scenario's new pod (nil: none).
func (x *run) newPodSpec() *scenarios.NewPod {
	a := x.spec.Action
	if a.Kind != scenarios.ActionTerminate || a.Terminate() == nil {
		return nil
	}
	return a.Terminate().NewPod
}

// proxyOptions are the proxy configuration's options for this run: with
// a new pod, the proxy's own errors name the upstream they came from.
func (x *run) proxyOptions() []proxy.Option {
	if x.newPodSpec() != nil {
		return []proxy.Option{proxy.ErrorsNameUpstream()}
	}
	return nil
}

// beforeDeletion starts the new pod, if the scenario has one, and, when
// the deletion must wait for it (before_deletion), returns once it is
// available: a pod that never becomes available makes the run invalid,
// as a rollout with maxUnavailable 0 would stall there, and so does one
// available only after the load's end (no client would see the
// termination).
func (x *run) beforeDeletion(ctx context.Context, loadStart time.Time) error {
	np := x.newPodSpec()
	if np == nil {
		return nil
	}
	i := x.spec.Replicas
	p := &newPodRun{spec: *np, available: make(chan struct{}), done: make(chan struct{})}
	p.res = record.NewPod{Name: replicaAlias(i), Upstream: proxy.Upstream(replicaAlias(i), x.port()), BeforeDeletion: np.BeforeDeletion}
	if x.caps.newPod == nil {
		x.caps.newPod = &newPodState{}
	}
	x.caps.newPod.run = p
	go func() {
		defer close(p.done)
		x.runNewPod(ctx, i, p)
	}()
	if !np.BeforeDeletion {
		return nil
	}
	select {
	case <-p.available:
		if end := loadStart.Add(x.spec.Load.Duration.D()); time.Now().After(end) {
			return invalidf("new pod %s was available only %s after the load started, after its end (load.duration %s): lengthen the load",
				p.res.Name, time.Since(loadStart).Round(time.Millisecond), x.spec.Load.Duration)
		}
		return nil
	case <-p.done:
		return invalidf("new pod %s never became available: %s (a rollout with maxUnavailable 0 stalls here)", p.res.Name, p.res.Error)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finishNewPod waits for the new pod's goroutine (bounded) and stores its
// record in the termination's: a pod that never became ready or never
// joined makes the run invalid, with the reason.
func (x *run) finishNewPod(ctx context.Context) error {
	if x.caps.newPod == nil || x.caps.newPod.run == nil {
		return nil
	}
	p := x.caps.newPod.run
	bound := p.spec.Timeout.D() + x.spec.Proxy.DeregisterAfter.D() + p.spec.MinReady.D() + deregisterTimeout + newPodSlack
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		return invalidf("new pod %s not done within %s", p.res.Name, bound)
	}
	res := p.res
	if a := x.meta.Action; a != nil && a.Termination() != nil {
		a.Termination().NewPod = &res
	}
	if res.Error != "" && ctx.Err() == nil {
		return invalidf("new pod %s: %s", res.Name, res.Error)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return x.newPodObserved(res)
}

// newPodObserveMin is the least load a run must send after its new pod
// joined the proxy: with less, the clients barely met the new pod, and a
// run that saw none of its failures would read as safe.
const newPodObserveMin = time.Second

// newPodObserved makes the run invalid when its new pod joined the proxy
// less than newPodObserveMin before the load's planned end: how a pod
// still starting takes traffic was then not measured (its container or
// readiness took longer than the load allowed for).
func (x *run) newPodObserved(res record.NewPod) error {
	end := x.meta.LoadStartNs + int64(x.spec.Load.Duration.D())
	if res.RegisteredNs == 0 || x.meta.LoadStartNs == 0 || end-res.RegisteredNs >= int64(newPodObserveMin) {
		return nil
	}
	left := time.Duration(end - res.RegisteredNs).Round(time.Millisecond)
	when := left.String() + " before its end"
	if left < 0 {
		when = (-left).String() + " after its end"
	}
	return invalidf("new pod %s joined the proxy %s after the load started, %s (load.duration %s): want at least %s of load after its joining to see it take traffic; lengthen the load",
		res.Name, time.Duration(res.RegisteredNs-x.meta.LoadStartNs).Round(time.Millisecond), when, x.spec.Load.Duration, newPodObserveMin)
}

// runNewPod starts the new pod (replica i), waits for its readiness, then
// marks it available after min_ready and has it join the proxy after the
// propagation delay, each counted from its readiness, in time order.
func (x *run) runNewPod(ctx context.Context, i int, p *newPodRun) {
	res := &p.res
	c, err := x.startReplica(ctx, i, x.obj.labels)
	if err != nil {
		res.Error = "start: " + err.Error()
		return
	}
	res.StartedNs = time.Now().UnixNano()
	if err := x.awaitReady(ctx, c, p); err != nil {
		res.Error = err.Error()
		return
	}
	ready := time.Unix(0, res.ReadyNs)
	steps := []struct {
		at time.Time
		do func()
	}{
		{ready.Add(p.spec.MinReady.D()), func() { res.AvailableNs = time.Now().UnixNano(); close(p.available) }},
		{ready.Add(x.spec.Proxy.DeregisterAfter.D()), func() { x.registerNewPod(ctx, res) }},
	}
	sort.SliceStable(steps, func(a, b int) bool { return steps[a].at.Before(steps[b].at) })
	for _, s := range steps {
		if err := sleepUntil(ctx, s.at); err != nil {
			res.Error = err.Error()
			return
		}
		s.do()
	}
}

// registerNewPod adds the new pod to the proxy's upstreams.
func (x *run) registerNewPod(ctx context.Context, res *record.NewPod) {
	adm, ok := x.r.eng.(proxyAdmin)
	eps := x.endpoints()
	if !ok || eps == nil || x.obj.proxy == nil {
		res.Error = "join the proxy: this engine cannot exec in the proxy container"
		return
	}
	_, sent, acked, err := eps.change(ctx, adm, x.obj.proxy.ID, func(s *endpointState) { s.new = true })
	res.RegisterSentNs, res.RegisteredNs = sent, acked
	if err != nil {
		res.Error = "join the proxy: " + err.Error()
	}
}

// awaitReady sets res.ReadyNs: the container's start without a readiness
// probe; else the probe as the kubelet's worker runs it
// (pkg/kubelet/prober/worker.go): a tick every period from the start, a
// tick skipped while fewer whole seconds than initialDelay have passed,
// ready after successThreshold passes in a row (2xx or 3xx within the
// timeout). It gives up at the pod's timeout.
func (x *run) awaitReady(ctx context.Context, c *docker.Container, p *newPodRun) error {
	res, r := &p.res, p.spec.Readiness
	if r == nil {
		res.ReadyNs = res.StartedNs
		return nil
	}
	start := time.Unix(0, res.StartedNs)
	deadline := start.Add(p.spec.Timeout.D())
	port := r.Port
	if port == 0 {
		port = x.port()
	}
	passed := 0
	for tick := start; !tick.After(deadline); tick = tick.Add(r.Period.D()) {
		if time.Duration(tick.Sub(start).Seconds())*time.Second < r.InitialDelay.D() {
			continue
		}
		if err := sleepUntil(ctx, tick); err != nil {
			return err
		}
		res.ReadinessProbes++
		pctx, cancel := context.WithTimeout(ctx, r.Timeout.D())
		_, err := x.getFromNetwork(pctx, c.ID, port, r.Path)
		cancel()
		if err != nil {
			res.ReadinessProbesFailed++
			passed = 0
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		if passed++; passed >= r.SuccessThreshold {
			res.ReadyNs = time.Now().UnixNano()
			return nil
		}
	}
	return fmt.Errorf("its readiness probe (GET %s on port %d) did not pass within %s: %d probes, %d failed", r.Path, port, p.spec.Timeout, res.ReadinessProbes, res.ReadinessProbesFailed)
}

// errNotReady is a probe's answer outside 200..399.
var errNotReady = errors.New("status outside 200..399")

// readyPoll is how often waitReadyPath asks; readyPollTimeout bounds one ask.
const (
	readyPoll        = 50 * time.Millisecond
	readyPollTimeout = time.Second
)

// waitReadyPath polls a user image's replica id for the target's ready
// path, straight at its address, until it answers 2xx or 3xx, at most
// target.ready_timeout; a replica that exited meanwhile ends the wait.
func (x *run) waitReadyPath(ctx context.Context, id string) error {
	deadline := time.Now().Add(x.readyTimeout())
	path := x.spec.Target.Protocol.ReadyPath
	for {
		pctx, cancel := context.WithTimeout(ctx, readyPollTimeout)
		_, err := x.getFromNetwork(pctx, id, x.port(), path)
		cancel()
		if err == nil {
			return nil
		}
		if st, ierr := x.r.eng.Inspect(ctx, id); ierr == nil && st.Exited() {
			return fmt.Errorf("exited before it answered %s", path)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("GET %s: %w", path, err)
		}
		if err := sleepUntil(ctx, time.Now().Add(readyPoll)); err != nil {
			return err
		}
	}
}
