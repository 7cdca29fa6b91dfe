package record

import (
	"slices"
	"strconv"
)

// WSTotals sums a WebSocket load's lines over its clients: what
// record.Meta.WS keeps of them (the lines themselves stay in
// records.jsonl).
type WSTotals struct {
	// Clients is the number of clients that printed a ws_client line.
	Clients int `json:"clients"`
	// Attempts = Opened + Failed; Closes = Opened.
	Attempts int `json:"attempts"`
	Opened   int `json:"opened"`
	Failed   int `json:"failed"`
	Closes   int `json:"closes"`
	// FailedByClass counts the failed attempts by class.
	FailedByClass map[Class]int `json:"failed_by_class,omitempty"`
	// ClosesByCode counts the closes by close code ("1001", "1006", ...).
	ClosesByCode map[string]int `json:"closes_by_code,omitempty"`
	// Events sums the clients' event counts.
	Events WSEventCounts `json:"events"`
	// Unknown sums the clients' never-delivered sequence numbers.
	Unknown int64 `json:"unknown"`
	// Exhausted counts clients that used up their attempt budget.
	Exhausted int `json:"exhausted,omitempty"`
}

func init() { registerPart[WSTotals](metaParts, "ws", "probe") }

// WS is the totals of the WebSocket load's lines (load kind ws only).
func (m Meta) WS() *WSTotals { return partOf[WSTotals](m.parts, "ws") }

// Totals sums what t counted: attempts and closes from the ws_attempt and
// ws_close lines, events and unknowns from the ws_client lines.
func (t *WSTally) Totals() WSTotals {
	var w WSTotals
	for _, c := range t.clients {
		w.Attempts += c.attempts
		w.Opened += c.opened
		w.Failed += c.failed
		w.Closes += c.closes
		for _, l := range c.lines {
			w.Clients++
			w.Events.Add(l.WSEventCounts)
			w.Unknown += l.Unknown
			if l.Exhausted {
				w.Exhausted++
			}
		}
	}
	w.FailedByClass, w.ClosesByCode = t.failedByClass, t.closesByCode
	return w
}

// ClientIDs returns the client indexes that printed a ws_client line,
// sorted.
func (t *WSTally) ClientIDs() []int {
	var ids []int
	for i, c := range t.clients {
		if len(c.lines) > 0 {
			ids = append(ids, i)
		}
	}
	slices.Sort(ids)
	return ids
}

// countClass and countCode keep the per-class and per-code totals.
func (t *WSTally) countClass(cl Class) {
	if t.failedByClass == nil {
		t.failedByClass = map[Class]int{}
	}
	t.failedByClass[cl]++
}

func (t *WSTally) countCode(code int) {
	if t.closesByCode == nil {
		t.closesByCode = map[string]int{}
	}
	t.closesByCode[strconv.Itoa(code)]++
}
