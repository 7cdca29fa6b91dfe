package record

import (
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
