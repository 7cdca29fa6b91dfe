package websockets

import (
	"os"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/websockets/wsmetrics"
	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/internal/sectiontest"
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

// computeWS computes a run with ws as its ws lines, as Load does.
func computeWS(meta record.Meta, reqs []record.Request, ws *wsmetrics.Lines) report.Metrics {
	return report.ComputeWith(meta, reqs, map[report.Need]report.RunInput{Need: ws})
}

// wsAt is the hand-made ws records' t0 + ms (internal/fixture; the
// others are in section_test.go).
var wsAt = fixture.WSAt

// show prints a nullable float.
func show(p *float64) any {
	if p == nil {
		return "nil"
	}
	return *p
}

// wsRecords is a records.jsonl of a ws run: a start line, two clients (one
// closed by the server and back 250 ms later, one never back), their
// totals.
const wsRecords = `{"type":"start","load_start_ns":1}
{"type":"ws_attempt","client":0,"attempt":1,"conn":1,"cause":"start","start_ns":1899999999000000000,"end_ns":1899999999001000000,"status":101,"class":"ok"}
{"type":"ws_attempt","client":1,"attempt":1,"conn":2,"cause":"start","start_ns":1899999999000000000,"end_ns":1899999999001000000,"status":101,"class":"ok"}
{"type":"ws_close","client":0,"attempt":1,"conn":1,"opened_ns":1899999999001000000,"closed_ns":1900000000100000000,"code":1001,"closed_by":"server","received":10}
{"type":"ws_close","client":1,"attempt":1,"conn":2,"opened_ns":1899999999001000000,"closed_ns":1900000000300000000,"code":1006,"closed_by":"abnormal","received":12}
{"type":"ws_attempt","client":1,"attempt":2,"cause":"error","start_ns":1900000000310000000,"end_ns":1900000000311000000,"status":503,"refusal":"draining","class":"http_error"}
{"type":"ws_attempt","client":0,"attempt":2,"conn":3,"cause":"close","start_ns":1900000000300000000,"end_ns":1900000000350000000,"status":101,"class":"ok"}
{"type":"ws_close","client":0,"attempt":2,"conn":3,"opened_ns":1900000000350000000,"closed_ns":1900000001000000000,"code":1000,"closed_by":"client","received":3,"gaps":1,"skipped":2}
{"type":"ws_client","client":0,"attempts":2,"opened":2,"failed":0,"closes":2,"received":13,"gaps":1,"skipped":2,"unknown":2}
{"type":"ws_client","client":1,"attempts":2,"opened":1,"failed":1,"closes":1,"received":12,"unknown":0}
`

// wsMeta is the Meta of that run: a full-mode replica signalled at wsT0,
// readiness failed at +5 ms, one peer terminated at its deadline.
func wsMeta() record.Meta {
	ten := 10
	return record.Meta{Valid: true, LoadKind: record.LoadKindWS,
		Action: &record.Action{Kind: record.ActionStop, SentNs: wsT0, ReturnedNs: wsAt(2500)},
		Replicas: []record.Replica{{Name: "replica-0", StopTimeoutS: &ten, Exited: true, ExitCode: new(int), ExitedNs: wsAt(2400),
			Env: map[string]string{"CLOSE_SPREAD_MS": "500", "UPGRADES_PER_S": "50", "PRESTOP_MS": "1000"},
			Events: []record.Event{{TimeNs: wsAt(-5000), Event: record.EventUp, Mode: "full"},
				{TimeNs: wsAt(1), Event: record.EventSignal}, {TimeNs: wsAt(5), Event: record.EventReadyFalse},
				{TimeNs: wsAt(2300), Event: record.EventWSTerminated}}}}}
}

// readWS reads wsRecords as report does.
func readWS(t *testing.T, text string) ([]record.Request, *wsmetrics.Lines) {
	t.Helper()
	ws := &wsmetrics.Lines{}
	var reqs []record.Request
	err := report.ReadRecords(strings.NewReader(text), "records.jsonl", func(r *record.Request) error {
		reqs = append(reqs, *r)
		return nil
	}, nil, ws)
	if err != nil {
		t.Fatal(err)
	}
	return reqs, ws
}

// TestComputeWS computes a whole ws run from its records file.
func TestComputeWS(t *testing.T) {
	reqs, ws := readWS(t, wsRecords)
	if len(ws.Attempts) != 4 || len(ws.Closes) != 3 || len(ws.Clients) != 2 || ws.Starts != 1 || len(reqs) != 0 {
		t.Fatalf("read %d attempts, %d closes, %d clients, %d starts, %d reqs", len(ws.Attempts), len(ws.Closes), len(ws.Clients), ws.Starts, len(reqs))
	}
	m := computeWS(wsMeta(), reqs, ws)
	if !m.AccountingOK {
		t.Errorf("accounting failed: %v", m.Notes)
	}
	w := Of(&m)
	if w == nil {
		t.Fatal("no ws metrics")
	}
	checks := []struct {
		name string
		got  report.Value
		want float64
	}{
		{"ws_clients", report.IntValue(w.WSClients), 2},
		{"ws_attempts", report.IntValue(w.WSAttempts), 4},
		{"ws_close_1001", report.IntValue(w.WSClose1001), 1},
		{"ws_close_1006", report.IntValue(w.WSClose1006), 1},
		{"ws_close_other", report.IntValue(w.WSCloseOther), 0},
		{"ws_close_after_signal_p50_ms", report.FloatPtrValue(w.WSCloseAfterSignalP50Ms), 100},
		{"ws_close_after_signal_max_ms", report.FloatPtrValue(w.WSCloseAfterSignalMaxMs), 300},
		{"ws_close_spread_ms", report.FloatPtrValue(w.WSCloseSpreadMs), 500},
		{"ws_terminated", report.IntValue(w.WSTerminated), 1},
		{"ws_upgrades_accepted_after_ready_false", report.IntPtrValue(w.WSAcceptedAfterReadyFalse), 1},
		{"ws_upgrades_refused_draining", report.IntPtrValue(w.WSRefusedDraining), 1},
		{"ws_restore_max_ms", report.FloatPtrValue(w.WSRestoreMaxMs), 250},
		{"ws_unrestored", report.IntValue(w.WSUnrestored), 1},
		{"ws_attempts_per_client_max", report.IntValue(w.WSAttemptsPerClientMax), 2},
		{"ws_peak_handshakes_per_100ms", report.IntPtrValue(w.WSPeakHandshakes), 2},
		{"ws_upgrades_per_s", report.IntPtrValue(w.WSUpgradesPerS), 50},
		{"ws_events_delivered", report.IntValue(w.WSEventsDelivered), 25},
		{"ws_events_unknown", report.IntValue(w.WSEventsUnknown), 2},
		{"ws_budget_ms", report.FloatPtrValue(w.WSBudgetMs), 3500},
		{"ws_budget_fits", report.BoolPtrValue(w.WSBudgetFits), 1},
	}
	for _, c := range checks {
		if c.got.Null || c.got.V != c.want {
			t.Errorf("%s = %+v, want %g", c.name, c.got, c.want)
		}
		if v, ok := m.Value(c.name); !ok || v != c.got {
			t.Errorf("catalog %s = %+v %v, want %+v", c.name, v, ok, c.got)
		}
	}
	if !strings.Contains(strings.Join(m.Notes, "\n"), "ws handshake peak: 2 in the 100 ms bucket from +300 ms after t0 at the target") {
		t.Errorf("no peak note: %v", m.Notes)
	}
}

// TestComputeWSOnlyForWSRuns: an agent run has no ws metrics (and no ws
// rows), a ws run has them whatever their values.
func TestComputeWSOnlyForWSRuns(t *testing.T) {
	agent := report.Compute(record.Meta{Valid: true}, []record.Request{{Type: "req", Class: record.ClassOK}})
	if Of(&agent) != nil {
		t.Errorf("agent run has ws metrics")
	}
	if m := computeWS(wsMeta(), nil, nil); Of(&m) == nil || m.AccountingOK {
		t.Errorf("a ws run without its lines: ws metrics %v, accounting ok %v", Of(&m) != nil, m.AccountingOK)
	}
	_, ws := readWS(t, wsRecords)
	wsRun := computeWS(wsMeta(), nil, ws)
	for _, d := range report.Rows([]*report.Metrics{&agent}) {
		if strings.HasPrefix(d.Name, "ws_") {
			t.Errorf("row %s for an agent run", d.Name)
		}
	}
	n := 0
	for _, d := range report.Rows([]*report.Metrics{&agent, &wsRun}) {
		if d.Optional == Need {
			n++
		}
	}
	if n != len(rows) {
		t.Errorf("%d ws rows with a ws run, want %d", n, len(rows))
	}
}

// TestWSAccounting: the runner's rule, applied again to the saved run.
func TestWSAccounting(t *testing.T) {
	tests := []struct {
		name, records string
		reqs          int
		want          string // "" = accounts for itself
	}{
		{"whole", wsRecords, 0, ""},
		{"no ws line at all", `{"type":"start","load_start_ns":1}` + "\n", 0, "ws run without any ws line"},
		{"no start line", strings.Replace(wsRecords, `{"type":"start","load_start_ns":1}`+"\n", "", 1), 0, "0 start lines"},
		{"a req line", wsRecords, 1, "1 req lines in a ws run"},
		{"a client line missing", strings.Replace(wsRecords, `{"type":"ws_client","client":1,`, `{"type":"later","client":1,`, 1), 0,
			"ws client 1: 0 ws_client lines"},
		{"an attempt missing", strings.Replace(wsRecords, `"attempt":2,"cause":"error"`, `"attempt":2,"cause":"error","type":"x"`, 1), 0,
			"ws client 1: attempts: client line 2, records 1"},
	}
	for _, tt := range tests {
		_, ws := readWS(t, tt.records)
		got := ""
		for _, err := range wsmetrics.CheckAccounting(tt.reqs, ws) {
			got += err.Error() + "\n"
		}
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if got != "" && !strings.HasPrefix(got, "ws accounting: ") {
			t.Errorf("%s: %q lacks the ws accounting prefix", tt.name, got)
		}
	}
}

// TestReadRecordsWSMalformed: a ws line that does not decode is an error
// naming the file and line, as any other line.
func TestReadRecordsWSMalformed(t *testing.T) {
	bad := `{"type":"start","load_start_ns":1}` + "\n" + `{"type":"ws_close","client":0,"code":"1001"}` + "\n"
	err := report.ReadRecords(strings.NewReader(bad), "records.jsonl", func(*record.Request) error { return nil }, nil)
	if err == nil || !strings.Contains(err.Error(), "records.jsonl:2: ws_close line:") {
		t.Errorf("err = %v, want records.jsonl:2: ws_close line: ...", err)
	}
}

// TestComputeWSUnattributed: behind the proxy, an opened handshake without
// the upstream header cannot be put on a replica, so the metrics that
// need one are null (never a count of the attributed part alone) and a
// note says why; the ones that need no replica keep their values.
func TestComputeWSUnattributed(t *testing.T) {
	meta := wsMeta()
	meta.Topology = record.TopologyCaddy
	meta.Replicas = append(meta.Replicas, record.Replica{Name: "replica-1"})
	reqs, ws := readWS(t, wsRecords) // no attempt carries an upstream
	m := computeWS(meta, reqs, ws)
	w := Of(&m)
	if w.WSCloseAfterSignalP50Ms != nil || w.WSPeakHandshakes != nil || w.WSAcceptedAfterReadyFalse != nil {
		t.Errorf("close p50 %v, peak %v, accepted %v: want null", show(w.WSCloseAfterSignalP50Ms), w.WSPeakHandshakes, w.WSAcceptedAfterReadyFalse)
	}
	if w.WSRefusedDraining == nil || *w.WSRefusedDraining != 1 || w.WSClose1001 != 1 || w.WSUnrestored != 1 {
		t.Errorf("refused draining %v, 1001 %d, unrestored %d: the unattributed-free metrics changed", w.WSRefusedDraining, w.WSClose1001, w.WSUnrestored)
	}
	if !strings.Contains(strings.Join(m.Notes, "\n"), "3 opened handshakes carry no X-Shutdownlab-Upstream") {
		t.Errorf("notes %v", m.Notes)
	}
	for i := range ws.Attempts {
		if ws.Attempts[i].Status == 101 {
			ws.Attempts[i].Upstream = "replica-0:8080"
		}
	}
	m = computeWS(meta, reqs, ws)
	if w := Of(&m); w.WSCloseAfterSignalP50Ms == nil || w.WSPeakHandshakes == nil || w.WSAcceptedAfterReadyFalse == nil {
		t.Errorf("every handshake attributed, still null: %+v", w)
	}
}

// TestRunValidityWS: a ws run the runner marked invalid without a reason
// finished (its totals are in the Meta): it is not "no agent summary".
func TestRunValidityWS(t *testing.T) {
	m := &report.Metrics{AccountingOK: true}
	if _, why := report.RunValidity(record.Meta{LoadKind: record.LoadKindWS}.With(&record.WSTotals{Clients: 2}), m); why != "marked invalid by the runner (no reason recorded)" {
		t.Errorf("ws run with totals: %q", why)
	}
	if _, why := report.RunValidity(record.Meta{LoadKind: record.LoadKindWS}, m); !strings.Contains(why, "did not finish") {
		t.Errorf("ws run without totals: %q", why)
	}
}

// TestWSFixtureShape checks the ws fixture (report/testdata, written by
// internal/fixture) says what the goldens claim:
// the storm meets replica-1's capacity under immediate and not under full
// jitter, the last stream is terminated (1006), and the run without a
// client's totals does not count.
func TestWSFixtureShape(t *testing.T) {
	res := sectiontest.LoadFixture(t, fixture.WSDir)
	if len(res.Variants) != 2 || res.Scenario != "fixture-ws" {
		t.Fatalf("variants/scenario = %d %q", len(res.Variants), res.Scenario)
	}
	imm, jit := &res.Variants[0], &res.Variants[1]
	for _, r := range imm.Runs {
		w := Of(&r.Metrics)
		if !r.Valid || w == nil {
			t.Fatalf("immediate run %d: valid %v (%s), ws metrics %v", r.Meta.Run, r.Valid, r.Reason, w != nil)
		}
		if w.WSClose1001 != fixture.WSClients-1 || w.WSClose1006 != 1 || w.WSTerminated != 1 {
			t.Errorf("immediate run %d: 1001 %d, 1006 %d, terminated %d", r.Meta.Run, w.WSClose1001, w.WSClose1006, w.WSTerminated)
		}
		if *w.WSRefusedCapacity == 0 || *w.WSRefusedDraining != fixture.WSClients/4 || *w.WSPeakHandshakes <= *w.WSUpgradesPerS/10 {
			t.Errorf("immediate run %d: capacity %d, draining %d, peak %d", r.Meta.Run, *w.WSRefusedCapacity, *w.WSRefusedDraining, *w.WSPeakHandshakes)
		}
	}
	if r := jit.Runs[1]; r.Valid || r.Metrics.AccountingOK {
		t.Errorf("full-jitter run 2 counts (%s): a client's totals are missing", r.Reason)
	}
	if w := Of(&jit.Runs[0].Metrics); w == nil || *w.WSRefusedCapacity != 0 || *w.WSPeakHandshakes > *w.WSUpgradesPerS/10 || w.WSEventsUnknown == 0 {
		t.Errorf("full-jitter run 1: %+v, want no capacity refusals and a gap without replay", w)
	}
}
