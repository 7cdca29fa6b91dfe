package gate

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// The fields of a Setup are set in one place: setPlacement and setAction
// spell them for both of their sources, what events.json recorded
// (RecordedSetup) and the spec a variant ran (SpecSetup).

// setPlacement records a variant's load kind, topology and replicas.
func (s Setup) setPlacement(variant, loadKind, topology string, replicas int) {
	s.Set(variant, "load.kind", loadKind)
	s.Set(variant, "topology", topology)
	s.Set(variant, "replicas", strconv.Itoa(replicas))
}

// actionSetup is a variant's action as a Setup records it.
type actionSetup struct {
	// kind is the action kind (for a roll: how it stops, roll true).
	kind string
	roll bool
	// atMs is when it was planned, in ms after load start (nil: never).
	atMs *float64
	// signal is the signal it sends ("": none recorded); timeoutS the
	// docker stop grace period in seconds (nil: none).
	signal   string
	timeoutS *int
}

// setAction records a variant's action fields.
func (s Setup) setAction(variant string, a actionSetup) {
	kind := a.kind
	if a.roll {
		kind = "roll via " + kind
	}
	s.Set(variant, "action.kind", kind)
	if a.atMs != nil {
		s.Set(variant, "action.at", report.FormatNumber(report.KindMs, *a.atMs)+" ms")
	}
	if a.signal != "" {
		s.Set(variant, "action.signal", a.signal)
	}
	if a.timeoutS != nil {
		s.Set(variant, "action.timeout", strconv.Itoa(*a.timeoutS)+"s")
	}
}

// SpecSetup is the Setup of one variant's spec, under label: the fields
// RecordedSetup reads from events.json, as the runner records them, and
// the load's parameters, which only the spec has.
func SpecSetup(label string, sp scenarios.Spec) Setup {
	s := Setup{}
	l := sp.Load
	s.setPlacement(label, string(l.Kind), string(sp.Topology), sp.Replicas)
	var kindFields map[string]string
	if def, _ := scenarios.LoadKindOf(l.Kind); def.Setup != nil {
		kindFields = def.Setup(l) // the kind's own parameters (load.probe)
	}
	for f, v := range kindFields {
		s.Set(label, f, v)
	}
	if kindFields == nil {
		setLoad(s, label, l)
	}
	s.setAction(label, specAction(sp.Action))
	return s
}

// setLoad records an agent load's parameters.
func setLoad(s Setup, label string, l scenarios.LoadSpec) {
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

// specAction is a spec's action as the runner records it: a roll by how
// it stops, no time for none, and the signal and the stop grace period
// for kinds signal and stop only (a variant none of whose runs finished
// has only these).
func specAction(a scenarios.Action) actionSetup {
	as := actionSetup{kind: string(a.Kind)}
	if a.Kind == scenarios.ActionRoll {
		as.kind, as.roll = string(a.Roll.Via), true
	}
	if a.Kind != scenarios.ActionNone {
		at := float64(a.At.D().Milliseconds())
		as.atMs = &at
	}
	if a.Kind == scenarios.ActionSignal || a.Kind == scenarios.ActionStop {
		as.signal = a.Signal
		if a.Kind == scenarios.ActionStop && a.Timeout != nil {
			t := int(a.Timeout.D() / time.Second)
			as.timeoutS = &t
		}
	}
	return as
}
