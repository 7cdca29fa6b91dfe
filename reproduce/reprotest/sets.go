package reprotest

import "github.com/shutdownlab/shutdownlab/report"

// The Set functions of the core's metrics; a capability's tests write
// their own for their part (report.Metrics.SetPart).

// ExitCode sets the exit code.
func ExitCode(c int) Set { return func(m *report.Metrics) { m.ExitCode = IntP(c) } }

// ExitAfter sets the exit time after the signal, in ms.
func ExitAfter(ms float64) Set { return func(m *report.Metrics) { m.ExitAfterMs = FloatP(ms) } }

// NeverExits clears the exit: no exit within the window.
func NeverExits() Set { return func(m *report.Metrics) { m.ExitCode, m.ExitAfterMs = nil, nil } }

// Dropped sets the in-flight requests dropped.
func Dropped(n int) Set { return func(m *report.Metrics) { m.DroppedInflight = IntP(n) } }

// Inflight sets the requests in flight at the action.
func Inflight(n int) Set { return func(m *report.Metrics) { m.InflightAtAction = IntP(n) } }

// Served sets the requests served after the signal.
func Served(n int) Set { return func(m *report.Metrics) { m.ServedAfterSignal = IntP(n) } }

// FailedAfter sets the requests failed after the signal.
func FailedAfter(n int) Set { return func(m *report.Metrics) { m.FailedAfterSignal = IntP(n) } }

// FailedAfterExit sets the requests failed after the exit.
func FailedAfterExit(n int) Set { return func(m *report.Metrics) { m.FailedAfterExit = IntP(n) } }

// Drain sets the drain time logged by the app, in ms.
func Drain(ms float64) Set {
	return func(m *report.Metrics) { m.LifecycleLog, m.DrainMs = true, FloatP(ms) }
}

// Handled sets whether the app logged a handled signal.
func Handled(b bool) Set {
	return func(m *report.Metrics) { m.LifecycleLog, m.SignalHandled = true, &b }
}

// Abandoned sets the in-flight requests the app logged as abandoned.
func Abandoned(n int) Set {
	return func(m *report.Metrics) { m.LifecycleLog, m.AbandonedInflight = true, IntP(n) }
}

// Steps sets the steps the app's handler job logged.
func Steps(n int) Set {
	return func(m *report.Metrics) { m.LifecycleLog, m.HandlerJobSteps = true, IntP(n) }
}

// Committed sets whether the app's handler job committed.
func Committed(b bool) Set {
	return func(m *report.Metrics) { m.LifecycleLog, m.HandlerJobCommitted = true, &b }
}

// Ghosts sets the ghost writes (and no lost write).
func Ghosts(n int) Set {
	return func(m *report.Metrics) { m.GhostWrites, m.LostWrites = IntP(n), IntP(0) }
}

// Lost sets the lost writes.
func Lost(n int) Set { return func(m *report.Metrics) { m.LostWrites = IntP(n) } }

// P99Ratio sets p99 against the baseline (and a 335 ms baseline p99).
func P99Ratio(r float64) Set {
	return func(m *report.Metrics) { m.P99VsBaseline, m.BaselineP99Ms = FloatP(r), FloatP(335) }
}

// Failed sets n failed requests, split evenly among the by_class keys
// cls.
func Failed(n int, cls ...string) Set {
	return func(m *report.Metrics) {
		m.Failed = n
		for _, c := range cls {
			m.ByClass[c] += n / len(cls)
		}
	}
}
