package record

import (
	"fmt"
	"sort"
)

// WSTally counts the WebSocket load driver's lines per client: the input
// of CheckWSAccounting. The zero WSTally is empty and ready to use.
type WSTally struct {
	clients       map[int]*wsClientTally
	failedByClass map[Class]int
	closesByCode  map[string]int
}

// wsClientTally is what one client's records add up to.
type wsClientTally struct {
	attempts, opened, failed, closes int
	badClass                         []string
	events                           WSEventCounts
	lines                            []WSClient
}

func (t *WSTally) client(i int) *wsClientTally {
	if t.clients == nil {
		t.clients = map[int]*wsClientTally{}
	}
	c := t.clients[i]
	if c == nil {
		c = &wsClientTally{}
		t.clients[i] = c
	}
	return c
}

// AddAttempt counts one WSAttempt line.
func (t *WSTally) AddAttempt(a WSAttempt) {
	c := t.client(a.Client)
	c.attempts++
	switch {
	case a.Class == ClassOK:
		c.opened++
	case a.Class.Known() && a.Class != ClassNotSent:
		c.failed++
		t.countClass(a.Class)
	default:
		c.badClass = append(c.badClass, string(a.Class))
	}
}

// AddClose counts one WSClose line.
func (t *WSTally) AddClose(w WSClose) {
	c := t.client(w.Client)
	c.closes++
	c.events.Add(w.WSEventCounts)
	t.countCode(w.Code)
}

// AddClient keeps one WSClient line.
func (t *WSTally) AddClient(w WSClient) {
	c := t.client(w.Client)
	c.lines = append(c.lines, w)
}

// Add adds o's counts to e.
func (e *WSEventCounts) Add(o WSEventCounts) {
	e.Received += o.Received
	e.DupRejected += o.DupRejected
	e.DupAccepted += o.DupAccepted
	e.Replayed += o.Replayed
	e.Gaps += o.Gaps
	e.Skipped += o.Skipped
}

// CheckWSAccounting is the accounting rule of a WebSocket driver run. For
// every client it requires:
//
//  1. every attempt's class is ok (opened) or a failure class;
//  2. exactly one ws_client line;
//  3. its attempts = opened + failed, and closes = opened (every opened
//     connection ended in exactly one ws_close line);
//  4. its attempts, opened, failed and closes equal the records counted;
//  5. its event counts equal the sum of its ws_close lines' counts.
//
// It returns every problem, clients in order, nil when the output
// accounts for itself.
func CheckWSAccounting(t *WSTally) []error {
	ids := make([]int, 0, len(t.clients))
	for i := range t.clients {
		ids = append(ids, i)
	}
	sort.Ints(ids)
	var errs []error
	for _, i := range ids {
		c := t.clients[i]
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("ws client %d: "+format, append([]any{i}, args...)...))
		}
		if len(c.badClass) > 0 {
			bad("%d attempts of unknown class %q", len(c.badClass), c.badClass)
		}
		if len(c.lines) != 1 {
			bad("%d ws_client lines, want exactly one", len(c.lines))
			continue
		}
		l := c.lines[0]
		if l.Attempts != l.Opened+l.Failed {
			bad("attempts %d != opened %d + failed %d", l.Attempts, l.Opened, l.Failed)
		}
		if l.Closes != l.Opened {
			bad("closes %d != opened %d", l.Closes, l.Opened)
		}
		for _, n := range []struct {
			name       string
			line, recs int
		}{{"attempts", l.Attempts, c.attempts}, {"opened", l.Opened, c.opened},
			{"failed", l.Failed, c.failed}, {"closes", l.Closes, c.closes}} {
			if n.line != n.recs {
				bad("%s: client line %d, records %d", n.name, n.line, n.recs)
			}
		}
		if l.WSEventCounts != c.events {
			bad("events: client line %+v, ws_close lines sum to %+v", l.WSEventCounts, c.events)
		}
	}
	return errs
}
