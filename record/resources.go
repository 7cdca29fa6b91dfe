package record

import (
	"cmp"
	"slices"
)

// ResourceSample is one reading of one process's resources, taken from
// outside the process (the host's /proc) by internal/resources: a series
// of them, every interval through a run, shows file descriptors, memory
// and threads over time (to show fd growth per aborted request, fds open
// at the signal). A process that has exited has no sample from then on.
type ResourceSample struct {
	// TimeNs is when the reading was taken (wall clock, Unix ns); every
	// process of one tick carries the same TimeNs.
	TimeNs int64 `json:"ts_ns"`
	// Replica names the target replica whose container the process
	// belongs to ("replica-0"); empty when the sampler was not run for a
	// replica.
	Replica string `json:"replica,omitempty"`
	// PID is the process id, in the PID namespace of the /proc read.
	PID int `json:"pid"`
	// PPID is its parent's pid (how a child of a sampled root was found).
	PPID int `json:"ppid"`
	// Name is the process's command name (/proc/PID/status Name).
	Name string `json:"name,omitempty"`
	// FDs counts its open file descriptors (/proc/PID/fd entries).
	FDs int `json:"fds"`
	// RSSBytes is its resident set size (VmRSS); 0 for a zombie or a
	// kernel thread, which have none.
	RSSBytes int64 `json:"rss_bytes"`
	// Threads counts its threads (/proc/PID/task entries).
	Threads int `json:"threads"`
}

// ResourceRun is how a run's resource sampling went (Meta.Resources): the
// samples themselves are a file of the run directory (one
// ResourceSample per line), this says what was sampled and, when nothing
// could be, why, so a report never shows an absent series as zeros.
type ResourceRun struct {
	// IntervalMs is the time between two ticks.
	IntervalMs float64 `json:"interval_ms"`
	// Replicas has one entry per target replica, in Meta.Replicas order.
	Replicas []ResourceReplica `json:"replicas"`
}

func init() { registerPart[ResourceRun](metaParts, "resources", "overlapped_with") }

// Resources is how the target replicas' processes were sampled (fds,
// RSS, threads: the run directory's resources file); nil when the
// runner did not sample.
func (m Meta) Resources() *ResourceRun { return partOf[ResourceRun](m.parts, "resources") }

// ResourceReplica is the sampling of one replica's process tree.
type ResourceReplica struct {
	// Name is the replica's alias ("replica-0").
	Name string `json:"name"`
	// PID is its container's init process in the engine's PID namespace
	// (0: the engine gave none).
	PID int `json:"pid,omitempty"`
	// Sampled is true when its process tree was read from this host's
	// /proc; NotSampled then is empty. Otherwise NotSampled says why
	// (the engine's /proc is not this host's: remote or rootless Docker;
	// the container was gone), and the run has no samples for it.
	Sampled    bool   `json:"sampled"`
	NotSampled string `json:"not_sampled,omitempty"`
	// Samples and Ticks count what was taken; StoppedBy says why sampling
	// ended ("gone": the container exited; "context": the run ended;
	// "max_samples": the bound); Error is a /proc read that failed
	// mid-run (the samples before it are kept).
	Samples   int    `json:"samples"`
	Ticks     int    `json:"ticks"`
	StoppedBy string `json:"stopped_by,omitempty"`
	Error     string `json:"error,omitempty"`
}

// ResourceTick is the total of one replica's process tree at one sampling
// tick: what its fd, memory and thread counts are read as (every sample
// of one tick carries the same TimeNs).
type ResourceTick struct {
	// TimeNs is when the tick was read (Unix ns).
	TimeNs int64
	// FDs, RSSBytes and Threads are the totals over its processes;
	// Processes counts them.
	FDs       int
	RSSBytes  int64
	Threads   int
	Processes int
}

// ResourceTicks sums the samples of replica (its alias, "replica-0") per
// tick, in time order.
func ResourceTicks(samples []ResourceSample, replica string) []ResourceTick {
	var out []ResourceTick
	for _, s := range samples {
		if s.Replica != replica {
			continue
		}
		if n := len(out); n == 0 || out[n-1].TimeNs != s.TimeNs {
			out = append(out, ResourceTick{TimeNs: s.TimeNs})
		}
		t := &out[len(out)-1]
		t.FDs += s.FDs
		t.RSSBytes += s.RSSBytes
		t.Threads += s.Threads
		t.Processes++
	}
	slices.SortStableFunc(out, func(a, b ResourceTick) int { return cmp.Compare(a.TimeNs, b.TimeNs) })
	return out
}
