// Package resourcemetrics computes the metrics of a run's acted-on
// replica from its resource samples (resources.jsonl, read by
// report.ReadResourceSamples: the open fds, RSS and threads of each
// replica's process tree, every 100 ms, summed per tick by
// record.ResourceTicks): fds and threads at the signal, fd growth per
// aborted request, peak RSS. Pure; report holds the result as a part of
// its Metrics (resources.Of), and its capability defines the rows.
package resourcemetrics

import (
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// Metrics are the metrics read from the resource samples of the acted-on
// replica (replica 0 without an action): its container's process tree,
// summed per tick. report.Metrics holds them as a part (resources.Of),
// flat in its JSON: absent from the JSON of a run without samples of that
// replica, and present (null where there is nothing to measure) otherwise.
type Metrics struct {
	// FDsAtSignal is the tree's open fds in the last tick at or before
	// the signal (shutdown.SignalTime); null without an action or such a tick.
	FDsAtSignal *int `json:"fds_at_signal"`
	// FDGrowthPerAbort is (fds at the window's end - fds as the load
	// began) divided by the requests of class aborted that ended in the
	// window: the end's count from the last tick at or before it, the
	// start's from the first tick at or after the load start (a tick
	// before the load can precede the target's own startup: a cluster's
	// workers still opening their files read 42 fds 122 ms before the load
	// and 58 once it ran, which alone made 0.42 "leaked" fds per abort of a
	// run that leaked none). The window is the load, cut at the action when
	// it was sent before the load ended: a shutdown closes descriptors of
	// its own. Null without such an aborted request or without both ticks.
	FDGrowthPerAbort *float64 `json:"fd_growth_per_abort"`
	// PeakRSSBytes is the largest RSS total of the tree over all ticks.
	PeakRSSBytes *int `json:"peak_rss_bytes"`
	// ThreadsAtSignal is the tree's thread total in the last tick at or
	// before the signal.
	ThreadsAtSignal *int `json:"threads_at_signal"`
}

// tickFrom returns the first tick at or after t (false: none, or t is 0).
func tickFrom(ticks []record.ResourceTick, t int64) (record.ResourceTick, bool) {
	if t == 0 {
		return record.ResourceTick{}, false
	}
	for _, k := range ticks {
		if k.TimeNs >= t {
			return k, true
		}
	}
	return record.ResourceTick{}, false
}

// tickAt returns the last tick at or before t (false: none, or t is 0).
func tickAt(ticks []record.ResourceTick, t int64) (record.ResourceTick, bool) {
	if t <= 0 {
		return record.ResourceTick{}, false
	}
	var got record.ResourceTick
	ok := false
	for _, k := range ticks {
		if k.TimeNs > t {
			break
		}
		got, ok = k, true
	}
	return got, ok
}

// Compute returns the resource metrics of a run from its request records
// and resource samples (nil without samples of the acted-on replica: the
// rows are then absent). It is pure.
func Compute(meta record.Meta, reqs []record.Request, samples []record.ResourceSample) *Metrics {
	i := shutdown.ActedReplica(meta)
	if i < 0 {
		return nil
	}
	ticks := record.ResourceTicks(samples, meta.Replicas[i].Name)
	if len(ticks) == 0 {
		return nil
	}
	rm := &Metrics{}
	peak := 0
	for _, k := range ticks {
		peak = max(peak, int(k.RSSBytes))
	}
	rm.PeakRSSBytes = &peak
	if sig, _ := shutdown.SignalTime(meta); sig > 0 {
		if k, ok := tickAt(ticks, sig); ok {
			rm.FDsAtSignal, rm.ThreadsAtSignal = ptr(k.FDs), ptr(k.Threads)
		}
	}
	end := meta.LoadEndNs
	if a := meta.Action; a != nil && a.SentNs > 0 && a.SentNs < end {
		end = a.SentNs
	}
	aborted := 0
	for i := range reqs {
		if reqs[i].Class == record.ClassAborted && reqs[i].End <= end {
			aborted++
		}
	}
	first, okStart := tickFrom(ticks, meta.LoadStartNs)
	last, okEnd := tickAt(ticks, end)
	if aborted > 0 && okStart && okEnd && first.TimeNs <= last.TimeNs {
		rm.FDGrowthPerAbort = ptr(float64(last.FDs-first.FDs) / float64(aborted))
	}
	return rm
}

func ptr[T any](v T) *T { return &v }
