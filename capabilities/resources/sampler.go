package resources

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	res "github.com/shutdownlab/shutdownlab/internal/resources"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
)

// The resource sampler is this capability's part in every run: a run
// hook (runner.RegisterRunHook) that samples the process tree of each
// target container the run starts and writes the samples to the run
// directory's resources file (resultdir.ResourcesFile), recording how
// sampling went in the run's record.Meta (record.ResourceRun).
func init() {
	runner.RegisterRunHook(string(Need), func(v runner.RunView) runner.RunHook { return &resourceSampler{view: v} })
}

// Bounds of the resource sampling of a run's replicas.
const (
	// sampleInterval is the time between two reads of a replica's
	// process tree.
	sampleInterval = 100 * time.Millisecond
	// sampleMaxSamples bounds the samples kept per replica (one per
	// process per tick): ~1000 s of ten processes.
	sampleMaxSamples = 100000
	// sampleMaxTime bounds a sampler that nothing stopped (the run ends it
	// before collect on every path; this is the backstop).
	sampleMaxTime = 2 * time.Hour
	// sampleStopBound bounds the wait for the samplers to return once
	// told to stop (one /proc walk).
	sampleStopBound = 10 * time.Second
	// preloadInterval is how often the tree is read until the load's
	// start is known; preloadKeep how many of those reads are kept to
	// find the last one before it (the start line arrives a few ms late).
	preloadInterval = 10 * time.Millisecond
	preloadKeep     = 20
)

// procRoot is the /proc the samplers read: the host's, where a local
// engine's container processes live; cgroupRoot is where the host mounts
// its cgroups, whose cgroup.procs files say which of those processes are
// a container's (nothing else is read). Tests point both at fake trees.
var (
	procRoot   = "/proc"
	cgroupRoot = res.DefaultCgroupRoot
)

// resourceSampler samples the process tree of every target replica
// (internal/resources) from the moment its container started until it
// exits or the run ends: open fds, RSS, processes and threads, every
// sampleInterval. It is the resources capability's state in a run, its
// run hook (a runner.ReplicaStarter and runner.LoadEnder).
type resourceSampler struct {
	view runner.RunView
	// mu guards ctx, cancel (set at the first replica's start: nil
	// before) and reps.
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	reps   []*replicaSampling
}

// replicaSampling is one replica's sampler and, once done, its result.
type replicaSampling struct {
	info    record.ResourceReplica
	samples []record.ResourceSample
	// atLoad is the tick read last before the load's start (beforeLoad).
	atLoad []record.ResourceSample
	done   chan struct{}
}

// ReplicaStarted starts sampling the target container c, just started,
// under its name (a replica's alias, or a Swarm task's name). When its
// processes cannot be read from this host's /proc, it is recorded as not
// sampled, with the reason; the run goes on.
func (s *resourceSampler) ReplicaStarted(ctx context.Context, c runner.Replica) {
	name, id := c.Name, c.ContainerID
	rs := &replicaSampling{info: record.ResourceReplica{Name: name}, done: make(chan struct{})}
	s.mu.Lock()
	if s.ctx == nil {
		s.ctx, s.cancel = context.WithTimeout(context.WithoutCancel(ctx), sampleMaxTime)
	}
	sctx := s.ctx
	s.reps = append(s.reps, rs)
	s.mu.Unlock()
	pid, err := s.view.ContainerPID(ctx, id)
	if err != nil {
		rs.info.NotSampled = "inspect: " + err.Error()
		close(rs.done)
		return
	}
	rs.info.PID = pid
	if why := procOf(procRoot, pid, id); why != "" {
		rs.info.NotSampled = why
		close(rs.done)
		return
	}
	cgroup, err := res.CgroupProcs(procRoot, cgroupRoot, pid)
	if err != nil {
		rs.info.NotSampled = "the container's processes cannot be listed: " + err.Error()
		close(rs.done)
		return
	}
	// The first tick is read here, so that a tree this process may not
	// read (another user's) is known at once, and the series has a sample
	// from the container's start whenever the run ends.
	first, err := res.Snapshot(procRoot, []int{pid}, cgroup, time.Now().UnixNano())
	if err != nil {
		rs.info.NotSampled = err.Error()
		close(rs.done)
		return
	}
	rs.info.Sampled = true
	rs.add(first, 1)
	if len(first) == 0 {
		rs.info.StoppedBy = res.StoppedByGone
		close(rs.done)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { rs.run(sctx, pid, cgroup) })
	wg.Go(func() { rs.beforeLoad(sctx, pid, cgroup, s.view.LoadStartNs) })
	go func() {
		wg.Wait()
		close(rs.done)
	}()
}

// add keeps samples, named by the replica, and counts ticks.
func (rs *replicaSampling) add(samples []record.ResourceSample, ticks int) {
	for k := range samples {
		samples[k].Replica = rs.info.Name
	}
	rs.samples = append(rs.samples, samples...)
	rs.info.Samples, rs.info.Ticks = len(rs.samples), rs.info.Ticks+ticks
}

// run samples pid's process tree (among cgroup's processes) until ctx
// ends or the tree is gone.
func (rs *replicaSampling) run(ctx context.Context, pid int, cgroup string) {
	got, err := res.Run(ctx, res.Config{Proc: procRoot, PIDs: []int{pid}, Cgroup: cgroup,
		Interval: sampleInterval, MaxSamples: sampleMaxSamples})
	rs.add(got.Samples, got.Ticks)
	rs.info.StoppedBy = got.StoppedBy
	if err != nil {
		rs.info.Error = err.Error()
	}
}

// beforeLoad reads pid's tree every preloadInterval until the load's
// start is known (loadStart, 0 before the start line), then keeps the last
// read taken at or before it as atLoad: the target's state just before
// the load. The 100 ms series need not have one: the load agent starts as
// soon as the target answers ready, often within one interval of the
// container's start, when the target had not opened its files yet. A
// replica started after the load's start gets none. A read that fails or
// finds the tree gone ends it (run records why).
func (rs *replicaSampling) beforeLoad(ctx context.Context, pid int, cgroup string, loadStart func() int64) {
	t := time.NewTicker(preloadInterval)
	defer t.Stop()
	var recent [][]record.ResourceSample
	for {
		if ls := loadStart(); ls != 0 {
			for k := len(recent) - 1; k >= 0; k-- {
				if recent[k][0].TimeNs <= ls {
					rs.atLoad = recent[k]
					break
				}
			}
			return
		}
		snap, err := res.Snapshot(procRoot, []int{pid}, cgroup, time.Now().UnixNano())
		if err != nil || len(snap) == 0 {
			return
		}
		if recent = append(recent, snap); len(recent) > preloadKeep {
			recent = recent[1:]
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// procOf says why pid, the engine's PID of container id, cannot be
// sampled from proc ("" when it can): the engine gave none, or proc is not
// the engine's PID namespace (rootless, remote or Desktop Docker), which
// shows as no such process or a process of another cgroup.
func procOf(proc string, pid int, id string) string {
	if pid <= 0 {
		return "the engine gave no PID for the container (not running)"
	}
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return fmt.Sprintf("PID %d (the engine's) cannot be read in this host's %s (%v): the engine's PID namespace is not this host's (remote, rootless or Desktop Docker)",
			pid, proc, err)
	}
	if !bytes.Contains(b, []byte(id)) {
		return fmt.Sprintf("PID %d in this host's %s is not the container's (its cgroup does not name container %.12s): the engine's PID namespace is not this host's (remote, rootless or Desktop Docker)",
			pid, proc, id)
	}
	return ""
}

// LoadEnded stops the samplers (bounded), writes their samples to the
// run directory dir's resources file and records how sampling went in
// the run's meta. Nothing sampled (no replica started) leaves meta alone.
func (s *resourceSampler) LoadEnded(meta *record.Meta, dir string) error {
	s.mu.Lock()
	cancel, reps := s.cancel, slices.Clone(s.reps)
	s.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	deadline := time.NewTimer(sampleStopBound)
	defer deadline.Stop()
	out := &record.ResourceRun{IntervalMs: float64(sampleInterval.Microseconds()) / 1000}
	var all []record.ResourceSample
	for _, rs := range reps {
		select {
		case <-rs.done:
			if len(rs.atLoad) > 0 {
				rs.add(rs.atLoad, 1)
			}
			all = append(all, rs.samples...)
		case <-deadline.C:
			return fmt.Errorf("resource sampler of %s still running %s after it was told to stop", rs.info.Name, sampleStopBound)
		}
		out.Replicas = append(out.Replicas, rs.info)
		if rs.info.NotSampled != "" {
			s.view.Logf("resources of %s not sampled: %s", rs.info.Name, rs.info.NotSampled)
		}
	}
	meta.SetPart(out)
	if len(all) == 0 {
		return nil
	}
	slices.SortStableFunc(all, func(a, b record.ResourceSample) int { return cmp.Compare(a.TimeNs, b.TimeNs) })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for k := range all {
		if err := enc.Encode(&all[k]); err != nil {
			return err
		}
	}
	return resultdir.WriteFileAtomic(filepath.Join(dir, resultdir.ResourcesFile), buf.Bytes())
}
