package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs/jobsmetrics"
	"github.com/shutdownlab/shutdownlab/capabilities/resources/resourcemetrics"
	"github.com/shutdownlab/shutdownlab/capabilities/websockets/wsmetrics"
)

// The parts are named here as the installed capabilities name them.
const (
	wsPart        Need = "ws"
	resourcesPart Need = "resources"
)

// TestPartsFlatInJSON: a part's keys are written flat, between the core
// metrics and setup_ms, in the order of the capabilities; removing a part
// removes its keys; a copy keeps its parts when the original changes.
func TestPartsFlatInJSON(t *testing.T) {
	var m Metrics
	m.SetPart(resourcesPart, &resourcemetrics.Metrics{})
	m.SetPart(wsPart, &wsmetrics.Metrics{WSClients: 7})
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	ws, res, setup := strings.Index(s, `"ws_clients":7`), strings.Index(s, `"fds_at_signal"`), strings.Index(s, `"setup_ms"`)
	if ws < 0 || res < 0 || !(strings.Index(s, `"p99_ms"`) < ws && ws < res && res < setup) {
		t.Errorf("want p99_ms < ws_clients < fds_at_signal < setup_ms in %s", s)
	}
	copied := m
	m.SetPart(wsPart, (*wsmetrics.Metrics)(nil))
	mine, theirs := PartOf[wsmetrics.Metrics](&m, wsPart), PartOf[wsmetrics.Metrics](&copied, wsPart)
	if mine != nil || theirs == nil || theirs.WSClients != 7 {
		t.Errorf("after removing ws: m's %v, the copy's %v", mine, theirs)
	}
	if b, _ := json.Marshal(m); strings.Contains(string(b), "ws_clients") {
		t.Errorf("removed part still in the JSON: %s", b)
	}
}

// TestSetPartRefusesAWrongType: a part of another type, or of no
// capability, panics instead of reading later as "no metrics".
func TestSetPartRefusesAWrongType(t *testing.T) {
	for name, p := range map[Need]any{wsPart: &jobsmetrics.Metrics{}, "carrier-pigeon": &wsmetrics.Metrics{}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetPart(%q, %T) did not panic", name, p)
				}
			}()
			var m Metrics
			m.SetPart(name, p)
		}()
	}
}
