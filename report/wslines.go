package report

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
)

// WSLines are the WebSocket load driver's lines of one run, as read from
// records.jsonl (record.Line): every connection attempt, every close of an
// opened connection and every client's totals, in file order, and how many
// start lines there were.
type WSLines struct {
	Attempts []record.WSAttempt
	Closes   []record.WSClose
	Clients  []record.WSClient
	// Starts counts the start lines (record.Start) of the file.
	Starts int
}

// Empty reports whether w holds no ws line at all.
func (w *WSLines) Empty() bool {
	return w == nil || len(w.Attempts) == 0 && len(w.Closes) == 0 && len(w.Clients) == 0
}

// take keeps l when it is a ws line (or counts it when it is a start
// line) and reports whether it was one of those.
func (w *WSLines) take(l *record.Line) bool {
	switch l.Type {
	case record.TypeWSAttempt:
		w.Attempts = append(w.Attempts, l.WSAttempt)
	case record.TypeWSClose:
		w.Closes = append(w.Closes, l.WSClose)
	case record.TypeWSClient:
		w.Clients = append(w.Clients, l.WSClient)
	case record.TypeStart:
		w.Starts++
	default:
		return false
	}
	return true
}

// tally counts the lines into a record.WSTally, the input of
// record.CheckWSAccounting.
func (w *WSLines) tally() *record.WSTally {
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

// isWSRun reports whether a run was driven by the WebSocket load driver:
// its Meta says so, or its records hold ws lines.
func isWSRun(meta record.Meta, ws *WSLines) bool {
	return meta.LoadKind == record.LoadKindWS || !ws.Empty()
}

// checkWSAccounting is the accounting rule of a ws run, as the runner
// applies it: record.CheckWSAccounting over the ws lines, exactly one start
// line, and no request line.
func checkWSAccounting(reqs int, ws *WSLines) []error {
	if ws == nil {
		ws = &WSLines{}
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

// LoadRunWS is LoadRun that also returns the run's ws lines (empty for
// runs of the other load kinds).
func LoadRunWS(rd string) (record.Meta, []record.Request, *WSLines, error) {
	var meta record.Meta
	ws := &WSLines{}
	if err := resultdir.ReadJSON(filepath.Join(rd, resultdir.EventsFile), &meta); err != nil {
		return meta, nil, ws, err
	}
	var reqs []record.Request
	var sum *record.Summary
	err := readRecordsFileWS(rd, func(r *record.Request) error {
		reqs = append(reqs, *r)
		return nil
	}, func(s *record.Summary) { sum = s }, ws)
	if meta.Agent == nil {
		meta.Agent = sum
	}
	return meta, reqs, ws, err
}

// readRecordsFileWS is ReadRunRecords that also keeps the ws lines in ws.
func readRecordsFileWS(rd string, onReq func(*record.Request) error, onSum func(*record.Summary), ws *WSLines) error {
	r, name, err := resultdir.OpenRecords(rd)
	if err != nil {
		return err
	}
	defer r.Close()
	return readRecords(r, name, onReq, onSum, ws)
}

// ReadWSLines reads only the ws lines of run directory rd.
func ReadWSLines(rd string) (*WSLines, error) {
	ws := &WSLines{}
	err := readRecordsFileWS(rd, func(*record.Request) error { return nil }, nil, ws)
	return ws, err
}
