package ws

import (
	"strconv"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

func TestIDCache(t *testing.T) {
	for _, tt := range []struct {
		name string
		size int
		ids  string // one id per byte
		want string // per id: r rejected, a accepted
	}{
		{"rejects a repeat", 4, "abca", "aaar"},
		{"an evicted id is accepted again", 2, "abca", "aaaa"},
		{"eviction is oldest first", 2, "abcb", "aaar"},
		{"a repeat does not refresh its age", 2, "abac", "aara"},
		{"size 0 never rejects", 0, "aaa", "aaa"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newIDCache(tt.size)
			got := ""
			for _, id := range tt.ids {
				if c.seen(string(id)) {
					got += "r"
				} else {
					got += "a"
				}
			}
			if got != tt.want {
				t.Errorf("ids %q: %q, want %q", tt.ids, got, tt.want)
			}
		})
	}
}

func TestSeqSet(t *testing.T) {
	for _, tt := range []struct {
		name    string
		add     []int64
		new     []bool
		iv      [][2]int64
		missing int64
	}{
		{"contiguous", []int64{1, 2, 3}, []bool{true, true, true}, [][2]int64{{1, 3}}, 0},
		{"a hole", []int64{1, 2, 5}, []bool{true, true, true}, [][2]int64{{1, 2}, {5, 5}}, 2},
		{"filling the hole joins", []int64{1, 2, 5, 4, 3}, []bool{true, true, true, true, true}, [][2]int64{{1, 5}}, 0},
		{"below the first", []int64{5, 3, 4}, []bool{true, true, true}, [][2]int64{{3, 5}}, 0},
		{"repeats are not new", []int64{7, 8, 7, 8}, []bool{true, true, false, false}, [][2]int64{{7, 8}}, 0},
		{"out of order", []int64{10, 1, 5}, []bool{true, true, true}, [][2]int64{{1, 1}, {5, 5}, {10, 10}}, 7},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var s seqSet
			for i, n := range tt.add {
				if got := s.add(n); got != tt.new[i] {
					t.Errorf("add(%d) = %v, want %v", n, got, tt.new[i])
				}
			}
			if len(s.iv) != len(tt.iv) {
				t.Fatalf("intervals %v, want %v", s.iv, tt.iv)
			}
			for i := range s.iv {
				if s.iv[i] != tt.iv[i] {
					t.Fatalf("intervals %v, want %v", s.iv, tt.iv)
				}
			}
			if m := s.missing(); m != tt.missing {
				t.Errorf("missing %d, want %d", m, tt.missing)
			}
		})
	}
}

// frames builds event frames for seqs; a negative number is a replayed
// frame of its absolute value.
func frames(seqs ...int64) []record.WSFrame {
	var out []record.WSFrame
	for _, s := range seqs {
		f := record.WSFrame{Type: record.WSFrameEvent}
		if s < 0 {
			s, f.Replay = -s, true
		}
		f.Seq, f.ID = s, "ev-"+strconv.FormatInt(s, 10)
		out = append(out, f)
	}
	return out
}

func TestTrackerAccounting(t *testing.T) {
	type counts = record.WSEventCounts
	for _, tt := range []struct {
		name    string
		cache   int
		conns   [][]record.WSFrame // one slice per connection
		want    counts             // the client's totals
		unknown int64
	}{
		{"one clean connection", 100, [][]record.WSFrame{frames(1, 2, 3)},
			counts{Received: 3}, 0},
		// Without replay the reconnect misses 4..6: a gap of 3 unknown
		// events, never zero loss.
		{"reconnect without replay: unknown gap", 100, [][]record.WSFrame{frames(1, 2, 3), frames(7, 8)},
			counts{Received: 5, Gaps: 1, Skipped: 3}, 3},
		// With replay after the cursor nothing is missed.
		{"reconnect with replay", 100, [][]record.WSFrame{frames(1, 2, 3), frames(-4, -5, -6, 7)},
			counts{Received: 7, Replayed: 3}, 0},
		// A cursor with overlap 2: the overlap comes back, and the cache
		// rejects it.
		{"overlap rejected by the cache", 100, [][]record.WSFrame{frames(1, 2, 3), frames(-2, -3, -4, 5)},
			counts{Received: 7, DupRejected: 2, Replayed: 1}, 0},
		// A cache of 1 holds only 3: 2 comes back accepted again (and
		// evicts 3, which then is too), which the exact sequence set sees.
		{"evicted id accepted again", 1, [][]record.WSFrame{frames(1, 2, 3), frames(-2, -3, -4)},
			counts{Received: 6, DupAccepted: 2, Replayed: 1}, 0},
		{"no cache: every duplicate accepted", 0, [][]record.WSFrame{frames(1, 2, 2, 3)},
			counts{Received: 4, DupAccepted: 1}, 0},
		// A replay that starts after a hole leaves the hole unknown.
		{"replay from past the buffer", 100, [][]record.WSFrame{frames(1, 2), frames(-6, -7, 8)},
			counts{Received: 5, Replayed: 2, Gaps: 1, Skipped: 3}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTracker(tt.cache)
			var sum counts
			for _, conn := range tt.conns {
				var c counts
				for _, f := range conn {
					tr.deliver(f, &c)
				}
				sum.Add(c)
			}
			if tr.total != tt.want {
				t.Errorf("totals %+v, want %+v", tr.total, tt.want)
			}
			if sum != tr.total {
				t.Errorf("connections sum to %+v, client totals %+v", sum, tr.total)
			}
			if u := tr.delivered.missing(); u != tt.unknown {
				t.Errorf("unknown %d, want %d", u, tt.unknown)
			}
		})
	}
}

func TestResumeCursor(t *testing.T) {
	tr := newTracker(10)
	if _, ok := tr.cursor(0); ok {
		t.Fatal("a cursor before any event")
	}
	var c record.WSEventCounts
	for _, f := range frames(5, 6, 9) {
		tr.deliver(f, &c)
	}
	for _, tt := range []struct{ overlap, want int64 }{{0, 9}, {2, 7}, {100, 0}} {
		if got, _ := tr.cursor(tt.overlap); got != tt.want {
			t.Errorf("cursor(overlap %d) = %d, want %d", tt.overlap, got, tt.want)
		}
	}
}
