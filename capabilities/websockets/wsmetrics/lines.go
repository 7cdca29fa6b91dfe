package wsmetrics

import (
	"errors"
	"fmt"

	"github.com/shutdownlab/shutdownlab/record"
)

// Lines are the WebSocket load driver's lines of one run, as read from
// records.jsonl (record.Line): every connection attempt, every close of an
// opened connection and every client's totals, in file order, and how many
// start lines there were.
type Lines struct {
	Attempts []record.WSAttempt
	Closes   []record.WSClose
	Clients  []record.WSClient
	// Starts counts the start lines (record.Start) of the file.
	Starts int
}

// Empty reports whether w holds no ws line at all.
func (w *Lines) Empty() bool {
	return w == nil || len(w.Attempts) == 0 && len(w.Closes) == 0 && len(w.Clients) == 0
}

// Take keeps l when it is a ws line (or counts it when it is a start
// line) and reports whether it was one of those.
func (w *Lines) Take(l *record.Line) bool {
	switch v := l.Value.(type) {
	case *record.WSAttempt:
		w.Attempts = append(w.Attempts, *v)
	case *record.WSClose:
		w.Closes = append(w.Closes, *v)
	case *record.WSClient:
		w.Clients = append(w.Clients, *v)
	default:
		if l.Type != record.TypeStart {
			return false
		}
		w.Starts++
	}
	return true
}

// tally counts the lines into a record.WSTally, the input of
// record.CheckWSAccounting.
func (w *Lines) tally() *record.WSTally {
	var t record.WSTally
	for _, a := range w.Attempts {
		t.AddAttempt(a)
	}
	for _, c := range w.Closes {
		t.AddClose(c)
	}
	for _, c := range w.Clients {
		t.AddClient(c)
	}
	return &t
}

// IsRun reports whether a run was driven by the WebSocket load driver:
// its Meta says so, or its records hold ws lines.
func IsRun(meta record.Meta, ws *Lines) bool {
	return meta.LoadKind == record.LoadKindWS || !ws.Empty()
}

// CheckAccounting is the accounting rule of a ws run, as the runner
// applies it: record.CheckWSAccounting over the ws lines, exactly one start
// line, and no request line.
func CheckAccounting(reqs int, ws *Lines) []error {
	if ws == nil {
		ws = &Lines{}
	}
	errs := record.CheckWSAccounting(ws.tally())
	if ws.Empty() {
		errs = append(errs, errors.New("ws run without any ws line"))
	}
	if ws.Starts != 1 {
		errs = append(errs, fmt.Errorf("%d start lines, want exactly one", ws.Starts))
	}
	if reqs > 0 {
		errs = append(errs, fmt.Errorf("%d req lines in a ws run, want none", reqs))
	}
	for i, err := range errs {
		errs[i] = fmt.Errorf("ws accounting: %w", err)
	}
	return errs
}
