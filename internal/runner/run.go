package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Bounds on the harness's own waits. They are not measurement windows: a
// run that hits one is invalid.
const (
	proxyReadyTimeout = 30 * time.Second            // Caddy logs that it serves (a replica: target.ready_timeout)
	setupSlack        = 60 * time.Second            // network and container starts, beyond the ready wait
	agentDrain        = 10 * time.Second            // agent waits this long for in-flight requests at the end
	agentStopBound    = agentDrain + 20*time.Second // telling the agent to stop, and its exit
	agentExitSlack    = 15 * time.Second            // beyond duration + drain before the agent is told to stop
	cleanupTimeout    = 60 * time.Second
	killEventGrace    = 50 * time.Millisecond // for kill events still in the engine's stream
	targetPort        = 8080
)

// agentLogMaxSize is the log rotation size of a load container: its
// output is read through the engine's followed log stream, which on Docker
// 20.10 repeats lines across a rotation (seen: a 10 000-client ws agent
// wrote 14-18 MB against the engine's 10 MB default, and the records held
// 5 352 lines twice, so the run was invalid for the engine, not the load).
const agentLogMaxSize = "2g"

// run is the state of one run in progress.
type run struct {
	r      *Runner
	spec   scenarios.Spec
	dir    string      // the run's result directory
	name   string      // name prefix of every object of this run
	meta   record.Meta // what the run records of itself
	obj    objects     // what set-up created: network, labels, containers
	target targetImage // the image the replicas run (imagesource.go)
	// load is what drives the load (the load agent, the probe, ...),
	// stream observes and writes its output, and follow is that output's
	// stream running in the background (nil before the agent started).
	load   *loadDriver
	stream *agentStream
	follow *agentFollow
	obs    observation // how the acted-on replica ended within the window (act.go)
	caps   runCaps     // the state of the capabilities in play in this run
}

// runCaps is the state of the capabilities a run has in play, one value
// per capability, each declared and kept by that capability's own file;
// nil while the capability has not acted in this run.
type runCaps struct {
	kills  *killWatch   // the action's watch on the engine's kill events (act.go)
	steps  *stepLog     // the action.before steps sent (steps.go)
	dereg  *deregState  // the proxy's deregistration, once scheduled (deregister.go)
	newPod *newPodState // a termination's new pod (newpod.go)
	// hooks are the registered capabilities' run hooks (runhook.go: the
	// resource sampler's), made at the run's start, read-only after.
	hooks       []RunHook
	ledgerStops ledgerStops // replicas stopped for the job ledger (accountstop.go)
}

// objects are what set-up created for a run: the network and the labels
// every object carries (on every platform), and the Docker platform's
// containers.
type objects struct {
	network string
	labels  map[string]string
	// mu guards replicas, agent and proxy while set-up, or a new pod,
	// runs in parallel.
	mu       sync.Mutex
	replicas []*docker.Container
	agent    *docker.Container
	proxy    *docker.Container // topology caddy only
}

// runOnce performs one repetition of a variant and returns its Meta, on
// whichever platform the scenario names (platform.go): one lifecycle for
// all. It never returns an error: harness failures make the run invalid,
// with the reason in the Meta, and everything created is removed on every
// path.
func (r *Runner) runOnce(ctx context.Context, v scenarios.Variant, i int, dir string) record.Meta {
	r.seq++
	x := &run{
		r: r, spec: v.Spec, dir: dir,
		name:   fmt.Sprintf("shutdownlab-%s-%d", r.eng.Session(), r.seq),
		stream: newAgentStream(),
		meta: record.Meta{
			Scenario: v.Spec.Name, Variant: v.Label, Params: v.Params, Run: i, Valid: true,
			Baseline: v.Baseline,
		},
	}
	load, err := newLoadDriver(v.Spec.Load.Kind)
	if err != nil { // nothing started yet
		x.judge(ctx, err)
		return x.meta
	}
	x.load, x.stream.other = load, load.observe
	x.caps.hooks = newRunHooks(x)
	p, err := newPlatform(x)
	if err != nil {
		x.judge(ctx, err)
		return x.meta
	}
	// Other sessions' containers are looked for from before this run's
	// start to after its end.
	overlap := startOverlapWatch(ctx, r.overlap, r.eng.Session())
	t0 := time.Now()
	err = os.MkdirAll(dir, 0o755)
	if err == nil {
		err = x.execute(ctx, p, t0)
	}
	// Collect and tear down with a context of their own: after Ctrl-C the
	// containers must still be read and removed.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout+p.cleanupSlack())
	defer cancel()
	tEnd := time.Now()
	x.meta.OverlappedWith = x.overlapped(cctx, overlap)
	err = p.afterLoad(ctx, err)
	if cerr := p.collect(cctx); cerr != nil && err == nil {
		err = cerr
	}
	if terr := p.teardown(cctx); terr != nil {
		r.opts.Progress.Logf("cleanup: %v (run `shutdownlab clean` to sweep)", terr)
		if err == nil {
			err = terr
		}
	}
	x.meta.TeardownMs = ms(time.Since(tEnd))
	p.finish(&x.meta)
	x.judge(ctx, err)
	return x.meta
}

// judge sets the run's validity from the error that ended it (nil: none)
// and, for a run that got through, the agent's accounting.
func (x *run) judge(ctx context.Context, err error) {
	// Agent output that could not be written (disk full) is the reason
	// whatever else went wrong after it: the records are incomplete.
	if oerr := x.stream.OutputErr(); oerr != nil {
		err = oerr
		x.meta.Incomplete = ctx.Err() != nil
	}
	switch {
	case err == nil:
	case ctx.Err() != nil && isCancel(err):
		x.meta.Incomplete = true
		x.meta.Valid = false
		x.meta.InvalidReason = "interrupted"
	default:
		x.meta.Valid = false
		x.meta.InvalidReason = err.Error()
	}
	// A valid run must be accountable: its load's output accounts for
	// itself (the agent's summary agrees with its records; a probe printed
	// exactly one probe line).
	if x.meta.Valid {
		if aerr := x.load.check(x.stream); aerr != nil {
			x.meta.Valid = false
			x.meta.InvalidReason = aerr.Error()
		}
	}
}

// overlapped stops the overlap watch and returns the other sessions it saw
// (printed on the progress output, with anything that kept it from seeing).
func (x *run) overlapped(ctx context.Context, w *overlapWatch) []string {
	others, problems := w.stop(ctx)
	p := x.r.opts.Progress
	for _, pr := range problems {
		p.Logf("overlap check: %s (another shutdownlab session on this engine may have gone unnoticed)", pr)
	}
	if len(others) > 0 {
		p.Logf("another shutdownlab session (%s) ran containers on this engine during this run: its timings may be disturbed",
			strings.Join(others, ", "))
	}
	return others
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// execute sets up, loads, acts and observes, on platform p. Containers
// it creates are recorded before any error check so teardown always finds
// them. Every wait in it is bounded and ends on Ctrl-C (ctx) too.
func (x *run) execute(ctx context.Context, p platform, t0 time.Time) (retErr error) {
	if err := x.setUp(ctx, p); err != nil {
		return err
	}
	// Stream the agent's records to disk while it runs.
	ap := p.agent()
	if ap == nil {
		return fmt.Errorf("%s: set-up started no agent", x.load.name())
	}
	fol, err := x.followAgent(ctx, ap)
	if err != nil {
		return err
	}
	x.follow = fol
	// Agent output that cannot be written (disk full) ends the run at
	// once: it is invalid, and the load would only fill the disk further.
	rctx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	go func() {
		select {
		case <-x.stream.outputFailed:
			cancelRun()
		case <-rctx.Done():
		}
	}()
	defer func() {
		// On any early exit (error, Ctrl-C) tell the agent to stop so its
		// last records and summary still arrive, then wait for the stream.
		if retErr != nil {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), agentStopBound)
			x.stopAgent(sctx, ap)
			cancel()
		}
		x.endFollow()
	}()

	sw := &startWait{eng: x.r.eng, replicas: x.obj.replicas, agent: ap, loadName: x.load.name(),
		timeout: x.startBound(), stream: x.stream, streamEnded: fol.done, progress: x.r.opts.Progress}
	if err := sw.wait(rctx); err != nil {
		return err
	}
	loadStart := time.Unix(0, x.stream.LoadStart())
	x.meta.LoadStartNs = loadStart.UnixNano()
	x.meta.SetupMs = ms(loadStart.Sub(t0))

	stopTicker := x.tickProgress(loadStart)
	defer stopTicker()

	if err := p.act(rctx, loadStart); err != nil {
		return err
	}
	return x.awaitAgent(rctx, ap, loadStart)
}

func (x *run) replicaName(i int) string { return fmt.Sprintf("%s-replica-%d", x.name, i) }

// startReplicas starts every target replica and waits for its "up" line.
func (x *run) startReplicas(ctx context.Context, labels map[string]string) error {
	for i := 0; i < x.spec.Replicas; i++ {
		if _, err := x.startReplica(ctx, i, labels); err != nil {
			return err
		}
	}
	for _, c := range x.obj.replicas {
		if err := x.waitUp(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// startReplica starts target replica i (alias replica-i) and records it in
// x.obj.replicas; it does not wait for it to be up.
func (x *run) startReplica(ctx context.Context, i int, labels map[string]string) (*docker.Container, error) {
	t := x.spec.Target
	var stopTimeout *int
	if t.StopTimeout != nil {
		s := int(t.StopTimeout.D() / time.Second)
		stopTimeout = &s
	}
	c, err := x.r.eng.Run(ctx, docker.ContainerSpec{
		Name: x.replicaName(i), Image: x.target.ref, Env: x.targetEnv(i), Labels: labels,
		Network: x.obj.network, Aliases: []string{replicaAlias(i)},
		Init: t.Init, StopTimeout: stopTimeout, Entrypoint: programEntrypoint(t), Cmd: programArgs(t),
	})
	if err != nil {
		return nil, err
	}
	x.obj.mu.Lock()
	x.obj.replicas = append(x.obj.replicas, c)
	x.obj.mu.Unlock()
	x.replicaStarted(ctx, replicaAlias(i), c.ID)
	return c, nil
}

// replica is replica i's container, read under x.obj.mu: a new pod's goroutine
// may be starting another replica meanwhile.
func (x *run) replica(i int) *docker.Container {
	x.obj.mu.Lock()
	defer x.obj.mu.Unlock()
	return x.obj.replicas[i]
}

// replicaAlias is replica i's DNS name on the scenario network.
func replicaAlias(i int) string { return fmt.Sprintf("replica-%d", i) }

// waitUp waits for a replica's "up" lifecycle line, at most
// target.ready_timeout. A user image (target.image) need not log one: the
// load waits for its ready path (see startWait), and when the proxy sends
// requests to every replica from its start (proxySendsToAll), waitUp polls
// each replica's ready path itself (waitReadyPath), so that the load
// starts only once every replica answers. A replica that exits
// first makes the run invalid at once, quoting its last lines.
func (x *run) waitUp(ctx context.Context, c *docker.Container) error {
	var err error
	switch {
	case x.spec.Target.Image == "":
		err = x.r.eng.WaitLog(ctx, c.ID, `"event":"`+record.EventUp+`"`, x.readyTimeout())
	case x.proxySendsToAll():
		err = x.waitReadyPath(ctx, c.ID)
	default:
		return nil
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	alias := strings.TrimPrefix(c.Name, x.name+"-")
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if st, ierr := x.r.eng.Inspect(ictx, c.ID); ierr == nil && st.Exited() {
		return exitedBeforeReady(ctx, x.r.eng, x.r.opts.Progress, alias, c.ID, st)
	}
	return invalidf("target %s never became ready: %v", alias, err)
}

func (x *run) startAgent(ctx context.Context, labels map[string]string) error {
	image, err := x.load.image(ctx, x.r.imgs)
	if err != nil {
		return err
	}
	lim := x.limits()
	c, err := x.r.eng.Run(ctx, docker.ContainerSpec{
		Name: x.name + "-agent", Image: image, Cmd: x.load.args(x),
		Labels: labels, Network: x.obj.network, LogMaxSize: agentLogMaxSize,
		MemoryBytes: lim.MemoryBytes(), PidsLimit: int64(lim.PIDs),
	})
	if err != nil {
		return fmt.Errorf("%s: %w", x.load.name(), err)
	}
	x.obj.mu.Lock()
	x.obj.agent = c
	x.obj.mu.Unlock()
	return nil
}

// limits are the memory and pids limits of the run's harness containers
// (the load agent, the services): the scenario's limits or the defaults.
func (x *run) limits() scenarios.HarnessLimits { return x.spec.HarnessLimits() }

// tickProgress reports load progress until the returned stop is called.
func (x *run) tickProgress(loadStart time.Time) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				x.r.opts.Progress.Load(time.Since(loadStart), x.loadCount())
			}
		}
	}()
	return func() { close(done) }
}
