package reproduce_test

import (
	"fmt"

	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce/reprotest"
)

// probe sets a probe metric through the note channel reproduce.FakeProbe
// reads.
func probe(name string, v float64) reprotest.Set {
	return func(m *report.Metrics) { m.Notes = append(m.Notes, fmt.Sprintf("probe:%s=%g", name, v)) }
}

// probeNever sets a probe metric to null.
func probeNever(name string) reprotest.Set {
	return func(m *report.Metrics) { m.Notes = append(m.Notes, "probe:"+name+"=null") }
}
