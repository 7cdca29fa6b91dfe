package reproduce

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// set is one metric assignment on a synthetic run.
type set func(m *report.Metrics)

func ip(n int) *int            { return &n }
func fp(x float64) *float64    { return &x }
func exitCode(c int) set       { return func(m *report.Metrics) { m.ExitCode = ip(c) } }
func exitAfter(ms float64) set { return func(m *report.Metrics) { m.ExitAfterMs = fp(ms) } }
func neverExits() set          { return func(m *report.Metrics) { m.ExitCode, m.ExitAfterMs = nil, nil } }
func dropped(n int) set        { return func(m *report.Metrics) { m.DroppedInflight = ip(n) } }
func inflight(n int) set       { return func(m *report.Metrics) { m.InflightAtAction = ip(n) } }
func served(n int) set         { return func(m *report.Metrics) { m.ServedAfterSignal = ip(n) } }
func failedAfter(n int) set    { return func(m *report.Metrics) { m.FailedAfterSignal = ip(n) } }
func failedAfterExit(n int) set {
	return func(m *report.Metrics) { m.FailedAfterExit = ip(n) }
}
func drain(ms float64) set {
	return func(m *report.Metrics) { m.LifecycleLog, m.DrainMs = true, fp(ms) }
}
func handled(b bool) set {
	return func(m *report.Metrics) { m.LifecycleLog, m.SignalHandled = true, &b }
}
func abandoned(n int) set {
	return func(m *report.Metrics) { m.LifecycleLog, m.AbandonedInflight = true, ip(n) }
}
func steps(n int) set {
	return func(m *report.Metrics) { m.LifecycleLog, m.HandlerJobSteps = true, ip(n) }
}
func committed(b bool) set {
	return func(m *report.Metrics) { m.LifecycleLog, m.HandlerJobCommitted = true, &b }
}
func ghosts(n int) set { return func(m *report.Metrics) { m.GhostWrites, m.LostWrites = ip(n), ip(0) } }
func lost(n int) set   { return func(m *report.Metrics) { m.LostWrites = ip(n) } }
func p99Ratio(r float64) set {
	return func(m *report.Metrics) { m.P99VsBaseline, m.BaselineP99Ms = fp(r), fp(335) }
}
func failed(n int, cls ...string) set {
	return func(m *report.Metrics) {
		m.Failed = n
		for _, c := range cls {
			m.ByClass[c] += n / len(cls)
		}
	}
}

// probe sets a probe metric through the note channel fakeProbe reads: this
// build's report.Metrics may not have the probe fields yet.
func probe(name string, v float64) set {
	return func(m *report.Metrics) { m.Notes = append(m.Notes, fmt.Sprintf("probe:%s=%g", name, v)) }
}

// probeNever sets a probe metric to null.
func probeNever(name string) set {
	return func(m *report.Metrics) { m.Notes = append(m.Notes, "probe:"+name+"=null") }
}

// fakeProbe makes metricValue read probe_* metrics from the notes probe
// wrote (unknown when absent), for the duration of the test.
func fakeProbe(t *testing.T) {
	old := metricValue
	metricValue = func(m *report.Metrics, name string) (report.Value, bool) {
		if !strings.HasPrefix(name, "probe_") {
			return m.Value(name)
		}
		for _, n := range m.Notes {
			if v, ok := strings.CutPrefix(n, "probe:"+name+"="); ok {
				if v == "null" {
					return report.Value{Null: true}, true
				}
				f, _ := strconv.ParseFloat(v, 64)
				return report.Value{V: f}, true
			}
		}
		return report.Value{}, false
	}
	t.Cleanup(func() { metricValue = old })
}

// noProbe makes every probe_* metric unknown, as in a build without them.
func noProbe(t *testing.T) {
	old := metricValue
	metricValue = func(m *report.Metrics, name string) (report.Value, bool) {
		if strings.HasPrefix(name, "probe_") {
			return report.Value{}, false
		}
		return m.Value(name)
	}
	t.Cleanup(func() { metricValue = old })
}

// runs makes n valid runs with the same settings.
func runs(n int, sets ...set) []report.Run {
	var out []report.Run
	for range n {
		out = append(out, mkRun(sets...))
	}
	return out
}

// mkRun makes one valid run.
func mkRun(sets ...set) report.Run {
	m := report.Metrics{ByClass: map[string]int{}, AccountingOK: true, LifecycleLog: true,
		SignalHandled: new(bool), DeadlineHit: new(bool), HandlerJobSteps: new(int), HandlerJobCommitted: new(bool)}
	for _, s := range sets {
		s(&m)
	}
	return report.Run{Name: "run", Valid: true, Metrics: m}
}

// v makes a variant of label with runs.
func v(label string, rs ...[]report.Run) report.Variant {
	out := report.Variant{Label: label, Slug: label}
	for _, r := range rs {
		out.Runs = append(out.Runs, r...)
	}
	return out
}

// result makes a result of scenario on runtime rt: every run's acted-on
// replica records the runtime.
func result(scenario, rt string, vs ...report.Variant) *report.Result {
	res := &report.Result{Scenario: scenario, Variants: vs,
		Fingerprint: record.Fingerprint{CPU: "Synthetic CPU", Cores: 2, Kernel: "6.1.0", OS: "linux/amd64",
			DockerVersion: "20.10.24", DockerAPI: "1.41", GoVersion: "go1.26.8"}}
	ver := map[string]string{"node": "node v20.20.2", "go": "go go1.26.8"}[rt]
	for i := range res.Variants {
		for j := range res.Variants[i].Runs {
			r := &res.Variants[i].Runs[j]
			r.Meta.Replicas = []record.Replica{{Name: "a", Runtime: ver}}
			r.Meta.Run = j + 1
		}
	}
	return res
}
