package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Line is one decoded line of the load agent's, the probe's or the
// WebSocket driver's stdout. Decode sets Type and fills the field it names
// (Start, Request, Summary, Probe, WSAttempt, WSClose or WSClient); the
// other fields keep whatever an earlier line left there. One Line can be
// reused for every line of a stream.
type Line struct {
	// Type is the line's "type": TypeStart, TypeRequest, TypeSummary,
	// TypeProbe, TypeWSAttempt, TypeWSClose, TypeWSClient, or another
	// value (a line of a type this version does not read, kept in the
	// records file and otherwise ignored); "" for a blank line.
	Type      string
	Start     Start
	Request   Request
	Summary   Summary
	Probe     ProbeResult
	WSAttempt WSAttempt
	WSClose   WSClose
	WSClient  WSClient
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
	l.Type = ""
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
	case TypeProbe:
		l.Probe = ProbeResult{}
		err = json.Unmarshal(b, &l.Probe)
	case TypeWSAttempt:
		l.WSAttempt = WSAttempt{}
		err = json.Unmarshal(b, &l.WSAttempt)
	case TypeWSClose:
		l.WSClose = WSClose{}
		err = json.Unmarshal(b, &l.WSClose)
	case TypeWSClient:
		l.WSClient = WSClient{}
		err = json.Unmarshal(b, &l.WSClient)
	}
	if err != nil {
		return fmt.Errorf("%s line: %w", head.Type, err)
	}
	return nil
}
