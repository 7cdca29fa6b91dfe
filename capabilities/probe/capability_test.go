package probe

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// TestMain installs this capability, and only it, into report: the tests
// read its rows, part and headline as a program with it in its list does,
// beside the core's.
func TestMain(m *testing.M) {
	report.Install(Capability)
	os.Exit(m.Run())
}

// TestProbeMetrics: a probe run gets the probe_* metrics from its probe
// line against shutdown.SignalTime; an agent run's JSON has no probe keys.
func TestProbeMetrics(t *testing.T) {
	const s = int64(1_000_000_000_000)
	const ms = int64(1_000_000)
	line := `{"type":"probe","kind":"idle","response_end_ns":` + itoa(s-2000*ms) + `,"load_start_ns":` + itoa(s-2000*ms) +
		`,"socket_closed_ns":` + itoa(s+ms) + `,"response_class":"ok","status":200,"conn_header":"keep-alive","closed":"eof"}`
	meta := record.Meta{Valid: true, LoadKind: "probe",
		Action: &record.Action{Kind: "signal", SentNs: s - 50*ms, ReturnedNs: s}, Replicas: []record.Replica{{Name: "replica-0"}}}.With(probeLine(t, line))
	m := report.Compute(meta, nil)
	if Of(&m) == nil || !m.AccountingOK || len(m.Notes) != 0 {
		t.Fatalf("metrics %+v notes %v", m, m.Notes)
	}
	if v := Of(&m).ProbeSocketClosedAfterSignalMs; v == nil || *v != 1 {
		t.Errorf("closed after signal %v, want 1", v)
	}
	if v := Of(&m).ProbeSocketClosedAfterResponseMs; v == nil || *v != 2001 {
		t.Errorf("closed after response %v, want 2001", v)
	}
	if k := Of(&m).ProbeResponseKeepalive; k == nil || !*k || !Of(&m).ProbeServerClosed {
		t.Errorf("keepalive %v server closed %v", k, Of(&m).ProbeServerClosed)
	}
	names := map[string]bool{}
	for _, d := range report.Rows([]*report.Metrics{&m}) {
		names[d.Name] = true
	}
	for _, d := range rows {
		if !names[d.Name] {
			t.Errorf("row %s missing for a probe run", d.Name)
		}
	}
	// never closed: the row stays, the value is null
	meta.SetPart(probeLine(t, strings.Replace(line, `"closed":"eof"`, `"closed":"timeout"`, 1)))
	m2 := report.Compute(meta, nil)
	b, _ := json.Marshal(m2)
	if !strings.Contains(string(b), `"probe_socket_closed_after_signal_ms":null`) || Of(&m2).ProbeServerClosed {
		t.Errorf("never closed: %s", b)
	}
	// missing probe line in a probe run: accounting fails
	meta.SetPart((*record.ProbeResult)(nil))
	if m3 := report.Compute(meta, nil); m3.AccountingOK {
		t.Errorf("probe run without a probe line counted")
	}
	// agent run: no probe keys, no probe rows
	a := report.Compute(record.Meta{Valid: true}, nil)
	b, _ = json.Marshal(a)
	if strings.Contains(string(b), "probe_") {
		t.Errorf("agent run JSON has probe keys: %s", b)
	}
	for _, d := range report.Rows([]*report.Metrics{&a}) {
		if strings.HasPrefix(d.Name, "probe_") {
			t.Errorf("agent run has row %s", d.Name)
		}
	}
}

// probeLine decodes a probe line as events.json holds it.
func probeLine(t *testing.T, line string) *record.ProbeResult {
	t.Helper()
	var r record.ProbeResult
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
