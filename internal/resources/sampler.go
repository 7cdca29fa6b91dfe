package resources

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// Bounds of a sampling run.
const (
	// MinInterval is the shortest interval Run accepts: reading /proc for
	// a process tree every tick is not free, and the harness shares its
	// cores with what it measures.
	MinInterval = 10 * time.Millisecond
	// DefaultInterval is Config.Interval when unset.
	DefaultInterval = 100 * time.Millisecond
	// DefaultMaxSamples is Config.MaxSamples when unset: a minute of ten
	// processes sampled every 100 ms, with room to spare.
	DefaultMaxSamples = 100000
)

// The values of Result.StoppedBy.
const (
	// StoppedByContext: the context ended (the run is over).
	StoppedByContext = "context"
	// StoppedByMaxSamples: Config.MaxSamples samples were taken.
	StoppedByMaxSamples = "max_samples"
	// StoppedByGone: no root process is left.
	StoppedByGone = "gone"
)

// Config is one sampling run.
type Config struct {
	// Proc is the /proc to read (default "/proc"); tests point it at a
	// fake tree.
	Proc string
	// PIDs are the root processes, as Proc numbers them. Required.
	PIDs []int
	// Cgroup is a cgroup.procs file (CgroupProcs): every descendant of
	// the roots among the processes it lists is sampled too, found afresh
	// every tick (a worker forked mid-run appears from its first tick).
	// Empty: the roots alone.
	Cgroup string
	// Interval is the time between ticks (default 100 ms, at least
	// MinInterval).
	Interval time.Duration
	// MaxSamples bounds the samples kept (default DefaultMaxSamples); the
	// tick that reaches it is kept whole and sampling stops.
	MaxSamples int
}

// Result is a sampling run's series.
type Result struct {
	// Samples holds one sample per live process per tick, in tick order.
	Samples []record.ResourceSample
	// Ticks counts the ticks taken.
	Ticks int
	// StoppedBy says why sampling ended: StoppedByContext,
	// StoppedByMaxSamples or StoppedByGone.
	StoppedBy string
}

// withDefaults fills zero fields and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.Proc == "" {
		c.Proc = "/proc"
	}
	if c.Interval == 0 {
		c.Interval = DefaultInterval
	}
	if c.MaxSamples == 0 {
		c.MaxSamples = DefaultMaxSamples
	}
	switch {
	case len(c.PIDs) == 0:
		return c, fmt.Errorf("resources: no PIDs to sample")
	case c.Interval < MinInterval:
		return c, fmt.Errorf("resources: interval %s: must be at least %s", c.Interval, MinInterval)
	case c.MaxSamples < 0:
		return c, fmt.Errorf("resources: max samples %d: must be positive", c.MaxSamples)
	}
	for _, p := range c.PIDs {
		if p <= 0 {
			return c, fmt.Errorf("resources: pid %d: must be positive", p)
		}
	}
	return c, nil
}

// Run samples cfg's processes every cfg.Interval, the first tick at once,
// until ctx ends, MaxSamples samples are kept or no root is left. An error
// reading /proc (other than a process that has gone) stops it; the samples
// taken so far are returned with it.
func Run(ctx context.Context, cfg Config) (Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	var res Result
	tick := time.NewTicker(cfg.Interval)
	defer tick.Stop()
	for {
		if ctx.Err() != nil {
			res.StoppedBy = StoppedByContext
			return res, nil
		}
		samples, err := Snapshot(cfg.Proc, cfg.PIDs, cfg.Cgroup, time.Now().UnixNano())
		if err != nil {
			return res, err
		}
		res.Ticks++
		res.Samples = append(res.Samples, samples...)
		switch {
		case len(res.Samples) >= cfg.MaxSamples:
			res.StoppedBy = StoppedByMaxSamples
			return res, nil
		case !anyRoot(samples, cfg.PIDs):
			res.StoppedBy = StoppedByGone
			return res, nil
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
}

func anyRoot(samples []record.ResourceSample, roots []int) bool {
	for _, s := range samples {
		for _, r := range roots {
			if s.PID == r {
				return true
			}
		}
	}
	return false
}

// Snapshot reads one tick: a sample of every live root (and, with a
// cgroup.procs file, every live descendant among the processes it lists)
// stamped ts. A process that is gone, or goes while it is read, has no
// sample.
func Snapshot(proc string, roots []int, cgroup string, ts int64) ([]record.ResourceSample, error) {
	pids := roots
	if cgroup != "" {
		members, err := cgroupMembers(cgroup)
		if gone(err) {
			// The container has exited: its cgroup is removed with it.
			members, err = nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("resources: %v", err)
		}
		ppidOf, err := parents(proc, members)
		if err != nil {
			return nil, fmt.Errorf("resources: %v", err)
		}
		pids = Descendants(roots, ppidOf)
	}
	out := make([]record.ResourceSample, 0, len(pids))
	for _, pid := range pids {
		s, err := sampleOne(proc, pid, ts)
		if gone(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("resources: %v", err)
		}
		out = append(out, s)
	}
	return out, nil
}

// sampleOne reads pid's status, fd and task directories.
func sampleOne(proc string, pid int, ts int64) (record.ResourceSample, error) {
	dir := filepath.Join(proc, strconv.Itoa(pid))
	f, err := os.Open(filepath.Join(dir, "status"))
	if err != nil {
		return record.ResourceSample{}, err
	}
	st, err := ParseStatus(f)
	f.Close()
	if err != nil {
		return record.ResourceSample{}, fmt.Errorf("%s: %v", filepath.Join(dir, "status"), err)
	}
	fds, err := countDir(filepath.Join(dir, "fd"))
	if err != nil {
		return record.ResourceSample{}, err
	}
	threads, err := countDir(filepath.Join(dir, "task"))
	if err != nil {
		return record.ResourceSample{}, err
	}
	return record.ResourceSample{TimeNs: ts, PID: pid, PPID: st.PPID, Name: st.Name, FDs: fds,
		RSSBytes: st.RSSBytes, Threads: threads}, nil
}
