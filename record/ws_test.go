package record_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// The WebSocket events are each defined once and close record.Events
// (both targets log them), in WSEvents' order.
func TestWSEventsDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range record.WSEvents {
		if seen[n] {
			t.Errorf("event %q defined twice", n)
		}
		seen[n] = true
	}
	if tail := record.Events[max(0, len(record.Events)-len(record.WSEvents)):]; !slices.Equal(tail, record.WSEvents) {
		t.Errorf("record.Events ends with %q, want the WebSocket events %q", tail, record.WSEvents)
	}
}

func TestCheckWSAccounting(t *testing.T) {
	ev := record.WSEventCounts{Received: 5, DupRejected: 1, Gaps: 1, Skipped: 2}
	attempt := func(c record.Class) record.WSAttempt { return record.WSAttempt{Client: 0, Class: c} }
	closeLine := record.WSClose{Client: 0, WSEventCounts: ev}
	good := record.WSClient{Client: 0, Attempts: 2, Opened: 1, Failed: 1, Closes: 1, WSEventCounts: ev}
	tests := []struct {
		name     string
		attempts []record.WSAttempt
		closes   []record.WSClose
		clients  []record.WSClient
		want     []string // substrings, one per error
	}{
		{"adds up", []record.WSAttempt{attempt(record.ClassOK), attempt(record.ClassHTTPError)},
			[]record.WSClose{closeLine}, []record.WSClient{good}, nil},
		{"no client line", []record.WSAttempt{attempt(record.ClassOK)}, []record.WSClose{closeLine}, nil,
			[]string{"0 ws_client lines"}},
		{"two client lines", nil, nil, []record.WSClient{{}, {}}, []string{"2 ws_client lines"}},
		{"unknown class", []record.WSAttempt{attempt(record.ClassOK), attempt("weird")},
			[]record.WSClose{closeLine}, []record.WSClient{good},
			[]string{`unknown class ["weird"]`, "failed: client line 1, records 0"}},
		{"not_sent is no attempt outcome", []record.WSAttempt{attempt(record.ClassOK), attempt(record.ClassNotSent)},
			[]record.WSClose{closeLine}, []record.WSClient{good},
			[]string{"unknown class", "failed: client line 1, records 0"}},
		{"attempt retried behind the records", []record.WSAttempt{attempt(record.ClassOK)},
			[]record.WSClose{closeLine}, []record.WSClient{good},
			[]string{"attempts: client line 2, records 1", "failed: client line 1, records 0"}},
		{"line does not add up", []record.WSAttempt{attempt(record.ClassOK), attempt(record.ClassHTTPError)},
			[]record.WSClose{closeLine},
			[]record.WSClient{{Attempts: 3, Opened: 1, Failed: 1, Closes: 1, WSEventCounts: ev}},
			[]string{"attempts 3 != opened 1 + failed 1", "attempts: client line 3, records 2"}},
		{"opened connection without close", []record.WSAttempt{attempt(record.ClassOK), attempt(record.ClassOK)},
			[]record.WSClose{closeLine},
			[]record.WSClient{{Attempts: 2, Opened: 2, Closes: 1, WSEventCounts: ev}},
			[]string{"closes 1 != opened 2"}},
		{"events differ", []record.WSAttempt{attempt(record.ClassOK), attempt(record.ClassHTTPError)},
			[]record.WSClose{{Client: 0, WSEventCounts: record.WSEventCounts{Received: 4}}},
			[]record.WSClient{good}, []string{"events: client line"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ta record.WSTally
			for _, a := range tt.attempts {
				ta.AddAttempt(a)
			}
			for _, c := range tt.closes {
				ta.AddClose(c)
			}
			for _, c := range tt.clients {
				ta.AddClient(c)
			}
			errs := record.CheckWSAccounting(&ta)
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors %v, want %d %q", len(errs), errs, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("error %d = %q, want it to contain %q", i, errs[i], w)
				}
			}
		})
	}
}
