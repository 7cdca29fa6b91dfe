package reproduce

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/report"
)

// What this package's external tests (package reproduce_test, which use
// package reprotest) need of its internals.

// FakeProbe makes the judges read probe_* metrics from the notes a
// test's probe sets wrote ("probe:NAME=VALUE"; unknown when absent), for
// the duration of the test: a stand-in for metrics a build may not
// compute.
func FakeProbe(t *testing.T) {
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

// NoProbe makes every probe_* metric unknown, as in a build without them,
// for the duration of the test.
func NoProbe(t *testing.T) {
	old := metricValue
	metricValue = func(m *report.Metrics, name string) (report.Value, bool) {
		if strings.HasPrefix(name, "probe_") {
			return report.Value{}, false
		}
		return m.Value(name)
	}
	t.Cleanup(func() { metricValue = old })
}

// SourceLines are the report's lines on where its claims were published.
func (rep *Report) SourceLines() []string { return rep.sourceLines() }

// WhyNotApplicable says why a scenario cannot run on a runtime (notApplicable).
var WhyNotApplicable = notApplicable

// UninstallClaims forgets the installed claim sets for the duration of
// the test, as in a program that installs none.
func UninstallClaims(t *testing.T) {
	old := installed
	installed = nil
	t.Cleanup(func() { installed = old })
}
