package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Setup is what a result was measured under, variant by variant: variant
// label → field ("load.clients", "action.at", ...) → value as text. Two
// results are comparable only when every field both record agrees.
type Setup map[string]map[string]string

// SetupFields are the core fields Comparable compares, in the order it
// reports them: the load (kind, shape, clients, duration, rate, request
// limit, mix), then (setupFields) the fields the load kinds declare
// (scenarios.LoadKindDef.SetupFields: the probe's load.probe), the
// action (kind, when, signal, stop grace), the topology and the number of
// replicas. RecordedSetup fills the action, topology, replicas and
// load.kind from events.json; the caller adds the load parameters from
// the spec it ran.
var SetupFields = []string{
	"load.kind", "load.shape", "load.clients", "load.duration", "load.rate", "load.max_requests", "load.mix",
	"action.kind", "action.at", "action.signal", "action.timeout", "topology", "replicas",
}

// setupFields is SetupFields with the load kinds' own fields after
// load.mix, in the kinds' order; read when asked, after every kind
// registered.
func setupFields() []string {
	at := slices.Index(SetupFields, "load.mix") + 1
	out := slices.Clone(SetupFields[:at])
	for _, k := range scenarios.LoadKinds() {
		d, _ := scenarios.LoadKindOf(k)
		out = append(out, d.SetupFields...)
	}
	return append(out, SetupFields[at:]...)
}

// Set records one field of one variant.
func (s Setup) Set(variant, field, value string) {
	if s[variant] == nil {
		s[variant] = map[string]string{}
	}
	s[variant][field] = value
}

// Merge adds o's fields to s, keeping s's value where both have one.
func (s Setup) Merge(o Setup) {
	for v, fs := range o {
		for f, val := range fs {
			if _, ok := s[v][f]; !ok {
				s.Set(v, f, val)
			}
		}
	}
}

// RecordedSetup reads, from the first run of each variant that has an
// events.json, what the runner recorded of how it ran: the action kind,
// signal, planned time and stop grace, the topology, the number of
// replicas and the load kind. These are effective values (after --set).
// SpecSetup reads the same fields from a spec; both set them through
// setPlacement and setAction, so the two spell every value alike.
func RecordedSetup(res *report.Result) Setup {
	s := Setup{}
	for i := range res.Variants {
		v := &res.Variants[i]
		for j := range v.Runs {
			m := v.Runs[j].Meta
			if m.Scenario == "" || len(m.Replicas) == 0 {
				continue // no events.json, or a run that never started a replica
			}
			kind, topo := m.LoadKind, m.Topology
			if kind == "" {
				kind = "agent"
			}
			if topo == "" {
				topo = "direct"
			}
			n := len(m.Replicas)
			if m.Replacement != nil {
				n--
			}
			s.setPlacement(v.Label, kind, topo, n)
			recordedAction(s, v.Label, m.Action, m.Baseline)
			break
		}
	}
	return s
}

// recordedAction records the action fields of one variant's events.json.
func recordedAction(s Setup, variant string, a *record.Action, baseline bool) {
	if a == nil {
		if baseline {
			s.setAction(variant, actionSetup{kind: "none"})
		}
		return
	}
	at := a.AfterMs
	s.setAction(variant, actionSetup{kind: a.Kind, roll: a.Roll, atMs: &at, signal: a.Signal, timeoutS: a.StopTimeoutS})
}

// Comparable returns why newRes cannot be compared with oldRes (nil when
// it can): a different scenario, a different set of variants, a baseline
// without a valid run (in all, or in a variant), or a field of
// setupFields() recorded on both sides with different values. Each reason
// names the field and both values.
func Comparable(newRes, oldRes *report.Result, newSetup, oldSetup Setup) []string {
	var out []string
	if newRes.Scenario != oldRes.Scenario {
		out = append(out, fmt.Sprintf("scenario: new %q, baseline %q", newRes.Scenario, oldRes.Scenario))
	}
	nl, ol := labels(newRes), labels(oldRes)
	if !slices.Equal(slices.Sorted(slices.Values(nl)), slices.Sorted(slices.Values(ol))) {
		out = append(out, fmt.Sprintf("variants: new [%s], baseline [%s]", strings.Join(nl, ", "), strings.Join(ol, ", ")))
	}
	if valid, total := validRuns(oldRes); valid == 0 {
		out = append(out, fmt.Sprintf("the baseline has no valid run (%d runs, none counts: %s)", total, invalidReasons(oldRes)))
	} else {
		for i := range oldRes.Variants {
			ov := &oldRes.Variants[i]
			if len(ov.ValidMetrics()) == 0 && slices.Contains(nl, ov.Label) {
				out = append(out, fmt.Sprintf("variant %s: no valid run in the baseline (%d runs)", ov.Label, len(ov.Runs)))
			}
		}
	}
	for _, v := range nl {
		if !slices.Contains(ol, v) {
			continue
		}
		for _, f := range setupFields() {
			nv, nok := newSetup[v][f]
			ov, ook := oldSetup[v][f]
			if nok && ook && nv != ov {
				out = append(out, fmt.Sprintf("variant %s: %s: new %s, baseline %s", v, f, nv, ov))
			}
		}
	}
	return out
}

// Unrecorded lists, as notes for the output, the fields of setupFields()
// recorded on one side only, for the variants both results have (the
// others are a reason of Comparable already): a result written before the
// field was saved, or a variant none of whose runs finished. Comparable
// does not compare these, so a note that holds for some variants only
// names them: it never covers a field that a reason compares.
func Unrecorded(newRes, oldRes *report.Result, newSetup, oldSetup Setup) []string {
	ol := labels(oldRes)
	var common []string
	for _, v := range labels(newRes) {
		if slices.Contains(ol, v) {
			common = append(common, v)
		}
	}
	var out []string
	for _, side := range []struct {
		name     string
		has, not Setup
	}{{"baseline", newSetup, oldSetup}, {"new", oldSetup, newSetup}} {
		// The variants lacking each field; fields lacking in the same
		// variants make one note, in setupFields() order.
		type group struct{ variants, fields []string }
		var groups []*group
		for _, f := range setupFields() {
			var vs []string
			for _, v := range common {
				_, has := side.has[v][f]
				_, not := side.not[v][f]
				if has && !not {
					vs = append(vs, v)
				}
			}
			if len(vs) == 0 {
				continue
			}
			i := slices.IndexFunc(groups, func(g *group) bool { return slices.Equal(g.variants, vs) })
			if i < 0 {
				groups, i = append(groups, &group{variants: vs}), len(groups)
			}
			groups[i].fields = append(groups[i].fields, f)
		}
		for _, g := range groups {
			fs := strings.Join(g.fields, ", ")
			switch {
			case len(g.variants) == len(common):
				out = append(out, fmt.Sprintf("the %s result does not record %s: not compared", side.name, fs))
			case len(g.variants) == 1:
				out = append(out, fmt.Sprintf("the %s result does not record %s for variant %s: not compared there", side.name, fs, g.variants[0]))
			default:
				out = append(out, fmt.Sprintf("the %s result does not record %s for variants %s: not compared there", side.name, fs, strings.Join(g.variants, "; ")))
			}
		}
	}
	return out
}

func labels(res *report.Result) []string {
	var out []string
	for _, v := range res.Variants {
		out = append(out, v.Label)
	}
	return out
}

// validRuns counts the valid runs of res, and all its runs.
func validRuns(res *report.Result) (valid, total int) {
	for i := range res.Variants {
		valid += len(res.Variants[i].ValidMetrics())
		total += len(res.Variants[i].Runs)
	}
	return valid, total
}

// invalidReasons lists the distinct reasons runs of res do not count.
func invalidReasons(res *report.Result) string {
	var rs []string
	for _, v := range res.Variants {
		for _, r := range v.Runs {
			if !r.Valid && !slices.Contains(rs, r.Reason) {
				rs = append(rs, r.Reason)
			}
		}
	}
	if len(rs) == 0 {
		return "no runs"
	}
	return strings.Join(rs, "; ")
}
