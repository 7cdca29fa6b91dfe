package runplan

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// ResultSetup is what result dir res was measured under: the action,
// topology and replicas its events.json record, plus the load parameters
// from effective.json, or else from its scenario.yaml (then --set
// overrides, if any, are unknown: the note says so).
func ResultSetup(dir string, res *report.Result, side string) (gate.Setup, []string) {
	s := gate.RecordedSetup(res)
	specs, note := ResultSpecs(dir)
	for label, spec := range specs {
		s.Merge(gate.SpecSetup(label, spec))
	}
	if note != "" {
		return s, []string{side + ": " + note}
	}
	return s, nil
}

// ResultSpecs reads the variants' specs of a result directory: from
// effective.json (which the runner writes before the first run, so a
// killed run has it too), else from scenario.yaml without --set.
func ResultSpecs(dir string) (map[string]scenarios.Spec, string) {
	out := map[string]scenarios.Spec{}
	doc, err := resultdir.ReadEffective(dir)
	if err == nil {
		for _, v := range doc.Variants {
			sp := scenarios.Spec{}
			if err := json.Unmarshal(v.Spec, &sp); err != nil {
				return map[string]scenarios.Spec{}, fmt.Sprintf("%s: variant %s unreadable (%v): load parameters not compared", resultdir.EffectiveFile, v.Label, err)
			}
			out[v.Label] = sp
		}
		return out, ""
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return out, fmt.Sprintf("%s unreadable (%v): load parameters not compared", resultdir.EffectiveFile, err)
	}
	noEffective := "no " + resultdir.EffectiveFile
	sc, err := scenarios.Load(filepath.Join(dir, resultdir.ScenarioFile))
	if err != nil {
		return out, fmt.Sprintf("%s, and %s does not load (%v): load parameters not compared", noEffective, resultdir.ScenarioFile, err)
	}
	vs, err := sc.Expand(nil)
	if err != nil {
		return out, fmt.Sprintf("%s, and %s does not expand (%v): load parameters not compared", noEffective, resultdir.ScenarioFile, err)
	}
	for _, v := range vs {
		out[v.Label] = v.Spec
	}
	return out, fmt.Sprintf("%s (a result of a version before the runner wrote it): load parameters taken from %s; --set overrides of that run, if any, are unknown", noEffective, resultdir.ScenarioFile)
}

// ResultCapabilities says which optional metrics a saved result can have:
// from its runs, and from the specs it was run with.
func ResultCapabilities(dir string, res *report.Result) gate.Capabilities {
	specs, _ := ResultSpecs(dir)
	return gate.CapabilitiesOf(res).Merge(gate.CapabilitiesOfSpecs(slices.Collect(maps.Values(specs))))
}

// NoteUnreadable prints one line per run directory a report could not
// read.
func NoteUnreadable(stderr io.Writer, res *report.Result) {
	for _, u := range res.Unreadable {
		fmt.Fprintf(stderr, "shutdownlab: skipped unreadable run %s\n", u)
	}
}
