package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// resultSetup is what result dir res was measured under: the action,
// topology and replicas its events.json record, plus the load parameters
// from effective.json, or else from its scenario.yaml (then --set
// overrides, if any, are unknown: the note says so).
func resultSetup(dir string, res *report.Result, side string) (gate.Setup, []string) {
	s := gate.RecordedSetup(res)
	specs, note := resultSpecs(dir)
	for label, spec := range specs {
		s.Merge(specSetup(label, spec))
	}
	if note != "" {
		return s, []string{side + ": " + note}
	}
	return s, nil
}

// resultSpecs reads the variants' specs of a result directory: from
// effective.json (which the runner writes before the first run, so a
// killed run has it too), else from scenario.yaml without --set.
func resultSpecs(dir string) (map[string]scenarios.Spec, string) {
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

// specSetup is the gate.Setup fields of one variant's spec.
func specSetup(label string, sp scenarios.Spec) gate.Setup {
	s := gate.Setup{}
	l := sp.Load
	s.Set(label, "load.kind", string(l.Kind))
	s.Set(label, "topology", string(sp.Topology))
	s.Set(label, "replicas", strconv.Itoa(sp.Replicas))
	if l.Kind == scenarios.LoadProbe && l.Probe() != nil {
		s.Set(label, "load.probe", fmt.Sprintf("%s %d ms, max wait %v", l.Probe().Kind, l.Probe().RequestMs(), l.Probe().MaxWait))
	} else {
		s.Set(label, "load.shape", string(l.Shape))
		s.Set(label, "load.clients", strconv.Itoa(l.Clients))
		s.Set(label, "load.duration", l.Duration.String())
		s.Set(label, "load.rate", strconv.FormatFloat(l.Rate, 'f', -1, 64))
		s.Set(label, "load.max_requests", strconv.Itoa(l.MaxRequests))
		var mix []string
		for _, r := range l.Mix {
			m := fmt.Sprintf("%s %s x%d", r.Method, r.Path, r.Weight)
			if r.BodyBytes > 0 {
				m += fmt.Sprintf(" body %d B", r.BodyBytes)
			}
			mix = append(mix, m)
		}
		s.Set(label, "load.mix", strings.Join(mix, ", "))
	}
	a := sp.Action
	kind := string(a.Kind)
	if a.Kind == scenarios.ActionRoll {
		kind = "roll via " + string(a.Roll.Via)
	}
	s.Set(label, "action.kind", kind)
	if a.Kind != scenarios.ActionNone {
		s.Set(label, "action.at", report.FormatNumber(report.KindMs, float64(a.At.D().Milliseconds()))+" ms")
	}
	// As the runner records them for these kinds (a variant none of whose
	// runs finished has only these).
	if a.Kind == scenarios.ActionSignal || a.Kind == scenarios.ActionStop {
		if a.Signal != "" {
			s.Set(label, "action.signal", a.Signal)
		}
		if a.Kind == scenarios.ActionStop && a.Timeout != nil {
			s.Set(label, "action.timeout", strconv.Itoa(int(a.Timeout.D()/time.Second))+"s")
		}
	}
	return s
}
