package record

// ResourceSample is one reading of one process's resources, taken from
// outside the process (the host's /proc) by internal/resources: a series
// of them, every interval through a run, shows file descriptors, memory
// and threads over time (issue 16: fd growth per aborted request, fds open
// at the signal). A process that has exited has no sample from then on.
type ResourceSample struct {
	// TimeNs is when the reading was taken (wall clock, Unix ns); every
	// process of one tick carries the same TimeNs.
	TimeNs int64 `json:"ts_ns"`
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
