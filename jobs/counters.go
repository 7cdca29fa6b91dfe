package jobs

import "sync/atomic"

// Counters count one StepWorker's executions (one replica's), so the
// replica can say at its stop what the stop did: how many jobs were still
// inside Work, and how many stopped at a checkpoint because their context
// was cancelled (handed back to the queue). The zero value is ready; a nil
// *Counters counts nothing. Safe for concurrent use.
type Counters struct {
	running   atomic.Int64
	cut       atomic.Int64
	completed atomic.Int64
	failed    atomic.Int64
}

// CounterSnapshot is the counters at one moment.
type CounterSnapshot struct {
	// Running is the number of executions inside Work now.
	Running int
	// Cut is the number of executions that stopped at a checkpoint
	// because their context ended (returned ctx's error: River hands the
	// job back as "interrupted" when the client's stop cancelled it).
	Cut int
	// Completed is the number of executions that applied every step.
	Completed int
	// Failed is the number of executions that ended with another error
	// (a step or bookkeeping write failed, e.g. on a closed pool).
	Failed int
}

// Snapshot reads the counters (a nil *Counters reads zero).
func (c *Counters) Snapshot() CounterSnapshot {
	if c == nil {
		return CounterSnapshot{}
	}
	return CounterSnapshot{
		Running:   int(c.running.Load()),
		Cut:       int(c.cut.Load()),
		Completed: int(c.completed.Load()),
		Failed:    int(c.failed.Load()),
	}
}

// begin counts an execution entering Work.
func (c *Counters) begin() {
	if c != nil {
		c.running.Add(1)
	}
}

// end counts an execution leaving Work with how it ended.
func (c *Counters) end(o endKind) {
	if c == nil {
		return
	}
	switch o {
	case endCut:
		c.cut.Add(1)
	case endCompleted:
		c.completed.Add(1)
	default:
		c.failed.Add(1)
	}
	c.running.Add(-1)
}

// endKind is how an execution left Work, for Counters.
type endKind int

const (
	endFailed endKind = iota
	endCut
	endCompleted
)
