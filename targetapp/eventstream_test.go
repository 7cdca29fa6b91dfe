package targetapp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// seqs decodes frames into their sequence numbers, replayed ones negated.
func seqs(t *testing.T, frames [][]byte, base int64) []int64 {
	t.Helper()
	var out []int64
	for _, b := range frames {
		var f record.WSFrame
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		n := f.Seq - base
		if f.Replay {
			n = -n
		}
		out = append(out, n)
	}
	return out
}

func TestEventStreamCursor(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	base := t0.UnixNano() / int64(100*time.Millisecond) // seq due at t0 with 10 events/s
	for _, tt := range []struct {
		name   string
		replay int
		after  int64 // relative to base; -1000 means no cursor
		want   []int64
	}{
		{"no cursor starts live", 2, -1000, nil},
		{"cursor inside the buffer replays what follows", 2, 1, []int64{-2, -3}},
		{"cursor before the buffer: replay from its oldest, a gap before", 2, -5, []int64{-2, -3}},
		{"no replay buffer starts live whatever the cursor", 0, 1, nil},
		{"cursor at the newest event replays nothing", 5, 3, nil},
		{"cursor ahead waits for what follows it", 5, 7, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newEventStream(10, tt.replay)
			s.tick(t0)
			s.tick(t0.Add(300 * time.Millisecond)) // base .. base+3
			cursor, replayTo := s.start(base+tt.after, tt.after != -1000)
			frames, _, _ := s.after(cursor, replayTo)
			got := seqs(t, frames, base)
			if len(got) != len(tt.want) {
				t.Fatalf("frames %v, want %v (negative: replayed)", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("frames %v, want %v (negative: replayed)", got, tt.want)
				}
			}
			// What follows is live and contiguous.
			s.tick(t0.Add(500 * time.Millisecond))
			more, _, _ := s.after(max(cursor, base+3), replayTo)
			if live := seqs(t, more, base); tt.after < 5 && (len(live) != 2 || live[0] != 4 || live[1] != 5) {
				t.Fatalf("live frames %v, want [4 5]", live)
			}
		})
	}
}

// A tick later than the ring's length keeps only the newest ring's worth:
// a writer whose cursor fell behind skips ahead (its client sees a gap).
func TestEventStreamLateTick(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	s := newEventStream(1000, 0)
	s.tick(t0)
	cursor := s.last
	s.tick(t0.Add(5 * time.Second)) // 5000 events due, ring holds 1024
	frames, last, _ := s.after(cursor, cursor)
	if len(frames) != fanoutSlack || last != cursor+5000 {
		t.Fatalf("%d frames up to %d, want the newest %d up to %d", len(frames), last-cursor, fanoutSlack, 5000)
	}
	if got := seqs(t, frames[:1], cursor); got[0] != 5000-fanoutSlack+1 {
		t.Fatalf("oldest frame %d after the cursor, want %d", got[0], 5000-fanoutSlack+1)
	}
}
