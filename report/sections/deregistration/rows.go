package deregistration

import (
	"slices"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// PreStopEnv is the target's pre-stop variable (how long it keeps serving,
// readiness failed, before it closes its listener); the deregistration
// section groups its curve by it.
const PreStopEnv = "PRESTOP_MS"

// Row is one variant of a scenario whose roll deregisters the replica
// from the proxy (proxy.deregister_after): the point (propagation delay,
// pre-stop) and what the clients saw, over its valid runs.
type Row struct {
	// Label is the variant label.
	Label string
	// DelayMs is the planned deregistration delay after the signal.
	DelayMs float64
	// PreStop is the acted-on replica's PRESTOP_MS ("" when not set); for
	// a termination, the hook's sleep plus PRESTOP_MS in ms: how long after
	// the pod's deletion the built-in target keeps its listener open (""
	// for an exec or http_get hook, whose length is the app's).
	PreStop string
	// Termination is true when the runs were the kubelet's termination
	// (action kind terminate): the delay and sent/acked then count from
	// the pod's deletion, not the stop signal.
	Termination bool
	// Valid counts the valid runs; Failed holds each one's failed
	// requests, in run order.
	Valid  int
	Failed []int
	// ByClass sums the failed requests of the valid runs by class key.
	ByClass map[string]int
	// SentMs and AckedMs are each valid run's deregistration request and
	// acknowledgement, in ms after the stop signal (AckedMs 0: none).
	SentMs, AckedMs []float64
}

// MeanFailed is the mean of Failed (0 without valid runs).
func (r Row) MeanFailed() float64 {
	if len(r.Failed) == 0 {
		return 0
	}
	s := 0
	for _, f := range r.Failed {
		s += f
	}
	return float64(s) / float64(len(r.Failed))
}

// PreStopMs is PreStop as a number (-1 when unset or not a number).
func (r Row) PreStopMs() float64 {
	v, err := strconv.ParseFloat(r.PreStop, 64)
	if err != nil {
		return -1
	}
	return v
}

// Rows returns one row per variant whose runs deregistered the
// acted-on replica from the proxy, in variant order (nil when none did).
// Pure.
func Rows(res *report.Result) []Row {
	var rows []Row
	for i := range res.Variants {
		v := &res.Variants[i]
		row, ok := Row{Label: v.Label, ByClass: map[string]int{}}, false
		for j := range v.Runs {
			r := &v.Runs[j]
			a := r.Meta.Action
			if a == nil || a.Deregister == nil {
				continue
			}
			ok = true
			row.DelayMs = a.Deregister.AfterMs
			if k := shutdown.ActedReplica(r.Meta); k >= 0 {
				row.PreStop = r.Meta.Replicas[k].Env[PreStopEnv]
			}
			if a.Termination() != nil {
				row.Termination, row.PreStop = true, terminationPreStop(a.Termination(), row.PreStop)
			}
			if !r.Valid {
				continue
			}
			row.Valid++
			row.Failed = append(row.Failed, r.Metrics.Failed)
			for k, n := range r.Metrics.ByClass {
				if report.IsFailed(classOfKey(k)) {
					row.ByClass[k] += n
				}
			}
			row.SentMs = append(row.SentMs, sinceSignal(a, a.Deregister.SentNs))
			row.AckedMs = append(row.AckedMs, sinceSignal(a, a.Deregister.AckedNs))
		}
		if ok {
			rows = append(rows, row)
		}
	}
	return rows
}

// sinceSignal is ns in ms after the action's send time, or a
// termination's deletion, from which its deregistration is timed (0 when
// either is missing).
func sinceSignal(a *record.Action, ns int64) float64 {
	from := a.SentNs
	if a.Termination() != nil {
		from = a.Termination().DeletedNs
	}
	if ns == 0 || from == 0 {
		return 0
	}
	return float64(ns-from) / 1e6
}

// terminationPreStop is a termination's pre-stop in ms: its sleep hook's
// sleep plus the target's PRESTOP_MS (env; unset counts 0), "" when the
// hook is not a sleep or PRESTOP_MS is not a number.
func terminationPreStop(t *record.Termination, env string) string {
	total := 0.0
	if h := t.Hook; h != nil {
		if h.Kind != "sleep" {
			return ""
		}
		total = h.SleepMs
	}
	if env != "" {
		v, err := strconv.ParseFloat(env, 64)
		if err != nil {
			return ""
		}
		total += v
	}
	return strconv.FormatFloat(total, 'f', -1, 64)
}

// classOfKey maps a by_class key back to its class ("http_NNN" is
// http_error).
func classOfKey(k string) record.Class {
	if strings.HasPrefix(k, "http_") {
		return record.ClassHTTPError
	}
	return record.Class(k)
}

// SmallestZeroPreStop returns, for each deregistration delay (ascending),
// the smallest pre-stop among rows with that delay whose every valid run
// failed no request ("" when none did, or no row had valid runs). Pure.
func SmallestZeroPreStop(rows []Row) (delays []float64, preStop []string) {
	for _, r := range rows {
		if !slices.Contains(delays, r.DelayMs) {
			delays = append(delays, r.DelayMs)
		}
	}
	slices.Sort(delays)
	for _, d := range delays {
		best, bestMs := "", 0.0
		for _, r := range rows {
			if r.DelayMs != d || r.Valid == 0 || slices.Max(r.Failed) != 0 || r.PreStopMs() < 0 {
				continue
			}
			if best == "" || r.PreStopMs() < bestMs {
				best, bestMs = r.PreStop, r.PreStopMs()
			}
		}
		preStop = append(preStop, best)
	}
	return delays, preStop
}
