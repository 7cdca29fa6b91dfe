package targetapp

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// fanoutSlack is how many events the ring keeps beyond the replay buffer,
// so a connection that falls briefly behind still gets every event; one
// that falls further behind skips ahead and its client sees a gap.
const fanoutSlack = 1024

// eventStream is the /events stream: one event every interval, numbered by
// the wall clock (seq = Unix ns / interval, due at seq × interval), so
// every replica of a scenario numbers the same moment alike and a client
// can resume on another replica with its cursor. It keeps the newest
// events in a ring for the connections' writers and the replay buffer.
type eventStream struct {
	interval time.Duration // 0: no events
	replay   int           // newest events available to ?after=

	mu     sync.Mutex
	ring   []ringEntry // indexed by seq % len(ring)
	last   int64       // highest seq appended; valid while count > 0
	count  int         // entries held, ≤ len(ring)
	notify chan struct{}
}

// ringEntry is one event and its encoded frame.
type ringEntry struct {
	frame record.WSFrame
	live  []byte // the frame as JSON, Replay false
}

// newEventStream returns a stream of perS events per second (0: none)
// that keeps the newest replay events for ?after=.
func newEventStream(perS, replay int) *eventStream {
	s := &eventStream{replay: replay, ring: make([]ringEntry, replay+fanoutSlack), notify: make(chan struct{})}
	if perS > 0 {
		s.interval = time.Second / time.Duration(perS)
	}
	return s
}

// run appends the due events every interval until ctx ends.
func (s *eventStream) run(ctx context.Context) {
	if s.interval == 0 {
		return
	}
	t := time.NewTicker(s.interval)
	defer t.Stop()
	s.tick(time.Now())
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.tick(now)
		}
	}
}

// tick appends every event due at now that is not in the ring yet: the
// first tick starts at the event due now (no backfill), a late tick
// catches up at most a ring's worth. It wakes the writers.
func (s *eventStream) tick(now time.Time) {
	due := now.UnixNano() / int64(s.interval)
	s.mu.Lock()
	from := s.last + 1
	if s.count == 0 {
		from = due
	}
	if due-from >= int64(len(s.ring)) {
		from = due - int64(len(s.ring)) + 1
		s.count = 0 // a jump: what the ring held is not contiguous with what follows
	}
	if from > due {
		s.mu.Unlock()
		return
	}
	for seq := from; seq <= due; seq++ {
		f := record.WSFrame{Type: record.WSFrameEvent, ID: "ev-" + strconv.FormatInt(seq, 10), Seq: seq,
			TimeNs: seq * int64(s.interval)}
		b, _ := json.Marshal(f)
		s.ring[seq%int64(len(s.ring))] = ringEntry{frame: f, live: b}
		s.count = min(s.count+1, len(s.ring))
	}
	s.last = due
	close(s.notify)
	s.notify = make(chan struct{})
	s.mu.Unlock()
}

// start is the cursor of a new connection: the client gets the events
// after it. Without after (has false) or without a replay buffer, that is
// the newest event (the stream starts live); with after, the events after
// it that the replay buffer still holds are replayed, and whatever lies
// before the buffer is a gap the client sees. A cursor ahead of the
// stream is kept: the client waits for what follows it.
func (s *eventStream) start(after int64, has bool) (cursor, replayTo int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	last := s.last
	if s.count == 0 {
		return last, last // no event yet: the client gets them from the first
	}
	if !has || s.replay == 0 {
		return last, last
	}
	oldest := last - int64(min(s.replay, s.count)) // the cursor that replays the whole buffer
	return max(after, oldest), last
}

// after returns the encoded frames after cursor that the ring holds (a
// cursor older than the ring skips ahead), frames up to replayTo marked
// replay, and the channel closed when the next events arrive.
func (s *eventStream) after(cursor, replayTo int64) (frames [][]byte, last int64, next <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next, last = s.notify, cursor
	if s.count == 0 || cursor >= s.last {
		return nil, last, next
	}
	from := max(cursor+1, s.last-int64(s.count)+1)
	for seq := from; seq <= s.last; seq++ {
		e := s.ring[seq%int64(len(s.ring))]
		if seq <= replayTo {
			f := e.frame
			f.Replay = true
			b, _ := json.Marshal(f)
			frames = append(frames, b)
			continue
		}
		frames = append(frames, e.live)
	}
	return frames, s.last, next
}
