package runner

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// wsLines feeds a ws driver the lines of clients that each opened one
// connection that the server closed with 1001.
func wsLines(t *testing.T, d *wsDriver, s *agentStream, clients int) {
	t.Helper()
	for i := range clients {
		for _, v := range []any{
			record.WSAttempt{Type: record.TypeWSAttempt, Client: i, Attempt: 1, Conn: uint64(i + 1), Cause: "start", Status: 101, Class: record.ClassOK},
			record.WSClose{Type: record.TypeWSClose, Client: i, Attempt: 1, Conn: uint64(i + 1), Code: 1001, ClosedBy: record.WSClosedByServer,
				WSEventCounts: record.WSEventCounts{Received: 5}},
			record.WSClient{Type: record.TypeWSClient, Client: i, Attempts: 1, Opened: 1, Closes: 1, WSEventCounts: record.WSEventCounts{Received: 5}},
		} {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			s.Write(append(b, '\n'))
		}
	}
}

// TestWSDriverAccounting: the driver's check passes exactly when every
// configured client's lines add up, and names what does not.
func TestWSDriverAccounting(t *testing.T) {
	tests := []struct {
		name    string
		clients int // configured
		printed int // clients whose lines arrive
		extra   string
		want    string // "" = valid
	}{
		{"all accounted", 3, 3, "", ""},
		{"a client missing", 3, 2, "", "2 of 3 clients printed their totals (missing: 2)"},
		{"a request line", 2, 2, `{"type":"req","id":"x","class":"ok"}`, "1 request and 0 probe lines"},
		{"a garbled ws line", 2, 2, `{"type":"ws_close","client":"zero"}`, "1 malformed lines"},
		{"an orphan close", 2, 2, `{"type":"ws_close","client":1,"attempt":2,"conn":9,"code":1006,"closed_by":"abnormal"}`, "ws client 1: closes: client line 1, records 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &wsDriver{clients: tt.clients}
			s := newAgentStream()
			s.other = d.observe
			s.Write([]byte(`{"type":"start","load_start_ns":1}` + "\n"))
			wsLines(t, d, s, tt.printed)
			if tt.extra != "" {
				s.Write([]byte(tt.extra + "\n"))
			}
			err := d.check(s)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("check: %v, want valid", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("check: %v, want an error with %q", err, tt.want)
			}
			var m record.Meta
			d.collect(&m, s)
			if m.LoadKind != record.LoadKindWS || m.WS() == nil || m.WS().Clients != tt.printed {
				t.Fatalf("collect: kind %q, totals %+v", m.LoadKind, m.WS())
			}
		})
	}
}

// TestWSDriverOutcome: the one-line outcome names clients, attempts and
// close codes.
func TestWSDriverOutcome(t *testing.T) {
	m := record.Meta{}.With(&record.WSTotals{Clients: 2, Attempts: 5, Failed: 1, Closes: 4, ClosesByCode: map[string]int{"1006": 1, "1001": 3}})
	got := (&wsDriver{}).outcome(m)
	if want := "2 clients, 5 attempts (1 failed), 4 closes (1001: 3, 1006: 1)"; got != want {
		t.Fatalf("outcome %q, want %q", got, want)
	}
}

// TestWSDriverProgress: progress counts connection attempts, and the line
// progress prints them under their own name, not as requests.
func TestWSDriverProgress(t *testing.T) {
	d := &wsDriver{clients: 2}
	s := newAgentStream()
	s.other = d.observe
	wsLines(t, d, s, 2)
	s.Write([]byte(`{"type":"ws_attempt","client":0,"attempt":2,"cause":"close","class":"refused"}` + "\n"))
	x := &run{load: d, stream: s}
	n := x.loadCount()
	if n.Done != 3 || n.Failed != 1 || n.Unit != "connection attempts" {
		t.Fatalf("progress %+v, want 3 connection attempts, 1 failed", n)
	}
	var out strings.Builder
	p := &lineProgress{w: &out}
	p.Load(2*time.Second, n)
	if !strings.Contains(out.String(), "3 connection attempts, 1 failed") {
		t.Fatalf("progress line %q", out.String())
	}
}
