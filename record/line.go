package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Line is one decoded line of the load agent's, the probe's or the
// WebSocket driver's stdout. Decode sets Type and fills the field it names
// for the load agent's own types (Start, Request, Summary; the other two
// keep whatever an earlier line left there), or Value for a capability's
// type. One Line can be reused for every line of a stream.
type Line struct {
	// Type is the line's "type": TypeStart, TypeRequest, TypeSummary, a
	// capability's registered type (TypeProbe, TypeWSAttempt, …), or
	// another value (a line of a type this version does not read, kept in
	// the records file and otherwise ignored); "" for a blank line.
	Type    string
	Start   Start
	Request Request
	Summary Summary
	// Value is a line of a capability's type, decoded into a fresh value
	// of its registered type (a *ProbeResult for TypeProbe, a *WSAttempt
	// for TypeWSAttempt), so a reader may keep it; nil for any other line.
	Value any
}

// lineTypes are the capabilities' line types by their "type": each
// registered by its record file (registerLineType), so a capability adds
// its lines without editing Decode.
var lineTypes = map[string]func() any{}

// registerLineType declares the line type typ, decoded into a *T. It
// panics, at program start, on a type registered twice, empty, or one of
// the load agent's own.
func registerLineType[T any](typ string) {
	_, taken := lineTypes[typ]
	if typ == "" || taken || typ == TypeStart || typ == TypeRequest || typ == TypeSummary {
		panic(fmt.Sprintf("record: line type %q registered twice or empty", typ))
	}
	lineTypes[typ] = func() any { return new(T) }
}

// errNotObject is the reason a line that is not a JSON object is malformed.
var errNotObject = errors.New("not a JSON object")

// Decode decodes one line (surrounding white space ignored) by its type.
// The error says why the line is malformed: it is not a JSON object
// (`null`, `[]`, text), or it is a line of a known type whose fields do not
// decode into that type (a request with "conn":-1, a summary whose
// by_class is not a map of counts). A blank line sets Type "" and is not an
// error. Unknown fields are ignored, and JSON keys match field names
// without regard to case (encoding/json), for every reader alike.
func (l *Line) Decode(b []byte) error {
	b = bytes.TrimSpace(b)
	l.Type, l.Value = "", nil
	if len(b) == 0 {
		return nil
	}
	if b[0] != '{' {
		return errNotObject
	}
	// Request lines are nearly all of a stream: decode them in one pass.
	l.Request = Request{}
	rerr := json.Unmarshal(b, &l.Request)
	if rerr == nil && l.Request.Type == TypeRequest {
		l.Type = TypeRequest
		return nil
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	l.Type = head.Type
	var err error
	switch head.Type {
	case TypeRequest:
		err = rerr
	case TypeStart:
		l.Start = Start{}
		err = json.Unmarshal(b, &l.Start)
	case TypeSummary:
		l.Summary = Summary{}
		err = json.Unmarshal(b, &l.Summary)
	default:
		if mk, ok := lineTypes[head.Type]; ok {
			v := mk()
			if err = json.Unmarshal(b, v); err == nil {
				l.Value = v
			}
		}
	}
	if err != nil {
		return fmt.Errorf("%s line: %w", head.Type, err)
	}
	return nil
}
