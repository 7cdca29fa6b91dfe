package record

import (
	"fmt"
	"strings"
	"testing"
)

func TestLineDecode(t *testing.T) {
	tests := []struct {
		name, in, typ, err string
	}{
		{"blank", "  \r", "", ""},
		{"start", `{"type":"start","load_start_ns":5}`, TypeStart, ""},
		{"request", ` {"type":"req","id":"a","class":"ok","conn":3} `, TypeRequest, ""},
		{"summary", `{"type":"summary","started":1,"by_class":{"ok":1}}`, TypeSummary, ""},
		{"probe", `{"type":"probe","kind":"idle","closed":"eof"}`, TypeProbe, ""},
		{"unknown type is read, not decoded", `{"type":"later","conn":-1}`, "later", ""},
		{"no type", `{"x":1}`, "", ""},
		{"null", `null`, "", "not a JSON object"},
		{"text", `garbage`, "", "not a JSON object"},
		{"truncated", `{"type":"req","id":`, "", "unexpected end"},
		{"trailing data", `{"type":"req"} {}`, "", "invalid character"},
		{"request field of the wrong type", `{"type":"req","conn":-1}`, TypeRequest, "req line:"},
		{"start field of the wrong type", `{"type":"start","load_start_ns":"x"}`, TypeStart, "start line:"},
		{"summary counts of the wrong type", `{"type":"summary","by_class":{"ok":"1"}}`, TypeSummary, "summary line:"},
		{"probe field of the wrong type", `{"type":"probe","closed":1}`, TypeProbe, "probe line:"},
		{"type of the wrong type", `{"type":1}`, "", "cannot unmarshal"},
		{"ws attempt", `{"type":"ws_attempt","client":2,"attempt":1,"conn":7,"cause":"start","start_ns":1,"end_ns":2,"status":101,"class":"ok"}`, TypeWSAttempt, ""},
		{"ws close", `{"type":"ws_close","client":2,"attempt":1,"conn":7,"opened_ns":2,"closed_ns":9,"code":1001,"closed_by":"server","received":3}`, TypeWSClose, ""},
		{"ws client", `{"type":"ws_client","client":2,"attempts":1,"opened":1,"closes":1,"received":3,"unknown":0}`, TypeWSClient, ""},
		{"ws attempt field of the wrong type", `{"type":"ws_attempt","client":"two"}`, TypeWSAttempt, "ws_attempt line:"},
		{"ws attempt conn negative", `{"type":"ws_attempt","conn":-1}`, TypeWSAttempt, "ws_attempt line:"},
		{"ws close code of the wrong type", `{"type":"ws_close","code":"1001"}`, TypeWSClose, "ws_close line:"},
		{"ws close counts of the wrong type", `{"type":"ws_close","received":1.5}`, TypeWSClose, "ws_close line:"},
		{"ws client unknown of the wrong type", `{"type":"ws_client","unknown":"none"}`, TypeWSClient, "ws_client line:"},
	}
	for _, tt := range tests {
		var l Line
		err := l.Decode([]byte(tt.in))
		if (tt.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.err)
		}
		if err == nil && l.Type != tt.typ {
			t.Errorf("%s: type %q, want %q", tt.name, l.Type, tt.typ)
		}
	}
}

// A reused Line starts every line afresh: no field or count of an earlier
// line leaks into a later one.
func TestLineReuse(t *testing.T) {
	var l Line
	for _, in := range []string{
		`{"type":"req","id":"a","class":"ok","status":200}`,
		`{"type":"summary","started":1,"by_class":{"ok":1}}`,
	} {
		if err := l.Decode([]byte(in)); err != nil {
			t.Fatal(err)
		}
	}
	first := l.Summary
	if err := l.Decode([]byte(`{"type":"req","id":"b","class":"reset"}`)); err != nil {
		t.Fatal(err)
	}
	if l.Request.Status != 0 || l.Request.ID != "b" {
		t.Errorf("request %+v carries an earlier line's fields", l.Request)
	}
	if err := l.Decode([]byte(`{"type":"summary","started":2,"by_class":{"reset":2}}`)); err != nil {
		t.Fatal(err)
	}
	if len(l.Summary.ByClass) != 1 || len(first.ByClass) != 1 || first.ByClass["ok"] != 1 {
		t.Errorf("summaries share or merge counts: first %v, second %v", first.ByClass, l.Summary.ByClass)
	}
}

// A reused Line decodes every WebSocket line afresh, into a fresh value
// a reader may keep: fields of an earlier line of the same type do not
// survive into the next one, and a kept value does not change.
func TestLineReuseWS(t *testing.T) {
	var l Line
	decode := func(in string) any {
		t.Helper()
		if err := l.Decode([]byte(in)); err != nil {
			t.Fatal(err)
		}
		return l.Value
	}
	a1 := decode(`{"type":"ws_attempt","client":1,"attempt":1,"status":503,"refusal":"draining","upstream":"a:8080","class":"http_error"}`).(*WSAttempt)
	c1 := decode(`{"type":"ws_close","client":1,"conn":4,"code":1001,"reason":"going away","closed_by":"server","dup_rejected":2}`).(*WSClose)
	k1 := decode(`{"type":"ws_client","client":1,"attempts":3,"exhausted":true,"unknown":5}`).(*WSClient)
	if a1.Refusal != RefusalDraining || c1.DupRejected != 2 || !k1.Exhausted {
		t.Fatalf("lines not decoded: %+v %+v %+v", a1, c1, k1)
	}
	a2 := decode(`{"type":"ws_attempt","client":2,"attempt":1,"status":101,"class":"ok"}`).(*WSAttempt)
	c2 := decode(`{"type":"ws_close","client":2,"conn":5,"code":1006,"closed_by":"abnormal"}`).(*WSClose)
	k2 := decode(`{"type":"ws_client","client":2,"attempts":1}`).(*WSClient)
	if a2.Refusal != "" || a2.Upstream != "" || a2.Client != 2 {
		t.Errorf("attempt %+v carries an earlier line's fields", a2)
	}
	if c2.Reason != "" || c2.DupRejected != 0 || c2.Code != WSCodeAbnormal {
		t.Errorf("close %+v carries an earlier line's fields", c2)
	}
	if k2.Exhausted || k2.Unknown != 0 || k2.Attempts != 1 {
		t.Errorf("client %+v carries an earlier line's fields", k2)
	}
	if a1.Client != 1 || c1.Conn != 4 || k1.Attempts != 3 {
		t.Errorf("kept values changed: %+v %+v %+v", a1, c1, k1)
	}
	if decode(`{"type":"req","id":"x","class":"ok"}`) != nil || decode(`{"type":"later"}`) != nil {
		t.Error("a request or unknown line left a capability value")
	}
}

// TestRegisterLineTypeRefuses: a line type registered twice, empty, or
// one of the agent's own panics at start; every registered type decodes
// into its own pointer type.
func TestRegisterLineTypeRefuses(t *testing.T) {
	for _, typ := range []string{TypeProbe, "", TypeStart, TypeRequest, TypeSummary} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("line type %q registered without a panic", typ)
				}
			}()
			registerLineType[Summary](typ)
		}()
	}
	want := map[string]any{TypeProbe: &ProbeResult{}, TypeWSAttempt: &WSAttempt{}, TypeWSClose: &WSClose{}, TypeWSClient: &WSClient{}}
	if len(lineTypes) != len(want) {
		t.Errorf("%d line types registered, want %d", len(lineTypes), len(want))
	}
	for typ, v := range want {
		if mk, ok := lineTypes[typ]; !ok || fmt.Sprintf("%T", mk()) != fmt.Sprintf("%T", v) {
			t.Errorf("line type %s: registered %v", typ, ok)
		}
	}
}
