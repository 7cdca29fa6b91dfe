package websockets

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/shutdownlab/shutdownlab/capabilities/captest"
	"slices"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// feed passes lines through a stand-in of the runner's stream: a line
// that does not decode is malformed, request and probe lines are tallied
// by the stream, every other line goes to the driver's Observe.
func feed(d *driver, o *captest.Output, lines ...[]byte) {
	var l record.Line
	for _, line := range lines {
		if err := l.Decode(line); err != nil {
			o.Tally.AddMalformed(err)
			continue
		}
		switch l.Type {
		case record.TypeRequest:
			o.Tally.AddRequest(l.Request.Class)
		case record.TypeProbe:
			o.Tally.Probes++
		default:
			d.Observe(l.Type, line)
		}
	}
}

// clientLines are the lines of clients that each opened one connection
// that the server closed with 1001.
func clientLines(t *testing.T, clients int) [][]byte {
	t.Helper()
	var out [][]byte
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
			out = append(out, b)
		}
	}
	return out
}

// TestDriverAccounting: the driver's check passes exactly when every
// configured client's lines add up, and names what does not.
func TestDriverAccounting(t *testing.T) {
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
		{"a line of another type", 2, 2, `{"type":"jobs_progress"}`, `malformed ws line: line of unknown type "jobs_progress"`},
		{"an orphan close", 2, 2, `{"type":"ws_close","client":1,"attempt":2,"conn":9,"code":1006,"closed_by":"abnormal"}`, "ws client 1: closes: client line 1, records 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, o := &driver{clients: tt.clients}, &captest.Output{}
			feed(d, o, clientLines(t, tt.printed)...)
			if tt.extra != "" {
				feed(d, o, []byte(tt.extra))
			}
			err := d.Check(o)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("check: %v, want valid", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "ws accounting: ")):
				t.Fatalf("check: %v, want an error with %q", err, tt.want)
			}
			var m record.Meta
			d.Collect(&m, o)
			if m.LoadKind != record.LoadKindWS || m.WS() == nil || m.WS().Clients != tt.printed {
				t.Fatalf("collect: kind %q, totals %+v", m.LoadKind, m.WS())
			}
		})
	}
}

// TestDriverOutcome: the one-line outcome names clients, attempts and
// close codes.
func TestDriverOutcome(t *testing.T) {
	m := record.Meta{}.With(&record.WSTotals{Clients: 2, Attempts: 5, Failed: 1, Closes: 4, ClosesByCode: map[string]int{"1006": 1, "1001": 3}})
	got := (&driver{}).Outcome(m)
	if want := "2 clients, 5 attempts (1 failed), 4 closes (1001: 3, 1006: 1)"; got != want {
		t.Fatalf("outcome %q, want %q", got, want)
	}
	if got := (&driver{}).Outcome(record.Meta{}); got != "no ws lines" {
		t.Errorf("outcome without ws lines %q", got)
	}
}

// TestDriverProgress: progress counts connection attempts, not requests.
func TestDriverProgress(t *testing.T) {
	d, o := &driver{clients: 2}, &captest.Output{}
	feed(d, o, clientLines(t, 2)...)
	feed(d, o, []byte(`{"type":"ws_attempt","client":0,"attempt":2,"cause":"close","class":"refused"}`))
	if n := d.Progress(); n.Done != 3 || n.Failed != 1 || n.Unit != "connection attempts" {
		t.Fatalf("progress %+v, want 3 connection attempts, 1 failed", n)
	}
}

// TestDriverArgs: the agent's container, its arguments for a catalog
// scenario and with --set, and its bound.
func TestDriverArgs(t *testing.T) {
	tests := []struct {
		scenario string
		sets     []string
		want     []string // flag value pairs that must be there
		absent   []string // flags that must not
	}{
		{"ws-retire", nil, []string{"-target replica-0:8080", "-path /events", "-clients 200", "-policy full-jitter", "-base 200ms", "-cap 2s", "-duration 12s", "-ramp 1s", "-seed 2", "-wait-ready /readyz", "-wait-timeout 20s", "-raw-peers 5"}, []string{"-mix", "-double-schedule", "-stable-after"}},
		{"ws-storm", []string{"load.ws.policy.kind=immediate", "load.ws.policy.double_schedule=true", "load.ws.raw_peers=3", "load.ws.seed=9", "load.ws.policy.stable_after=1s"}, []string{"-policy immediate", "-double-schedule", "-raw-peers 3", "-seed 9", "-ramp 4s", "-stable-after 1s"}, []string{"-base", "-cap"}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			sc, err := scenarios.Find(tt.scenario)
			if err != nil {
				t.Fatal(err)
			}
			vs, err := sc.Expand(tt.sets)
			if err != nil {
				t.Fatal(err)
			}
			d := &driver{}
			args := strings.Join(d.Args(captest.View{Spec: vs[0].Spec, Seq: 1}), " ")
			for _, w := range tt.want {
				if !strings.Contains(args, w) {
					t.Errorf("args %q lack %q", args, w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(args, a+" ") {
					t.Errorf("args %q hold %q", args, a)
				}
			}
			w := LoadOf(vs[0].Spec.Load)
			if d.clients != w.Clients {
				t.Errorf("args kept %d clients, want %d", d.clients, w.Clients)
			}
			l := vs[0].Spec.Load
			if got, want := d.Bound(vs[0].Spec), l.Duration.D()+w.CloseTimeout.D()+w.HandshakeTimeout.D(); got != want {
				t.Errorf("bound %v, want %v", got, want)
			}
		})
	}
	var d runner.LoadDriver = &driver{}
	if ref, err := d.Image(context.Background(), captest.Images{}); err != nil || ref != images.WSAgentImageName+"@"+images.WSAgentPackage {
		t.Errorf("image %q, %v", ref, err)
	}
	if _, err := d.Image(context.Background(), captest.Images{Err: errors.New("no docker")}); err == nil || !strings.Contains(err.Error(), "ws agent image: no docker") {
		t.Errorf("image error %v", err)
	}
	if d.Name() != "ws agent" || !slices.Contains(scenarios.LoadKinds(), LoadKind) {
		t.Errorf("name %q, kinds %v", d.Name(), scenarios.LoadKinds())
	}
}
