package ws

import (
	"sort"

	"github.com/shutdownlab/shutdownlab/record"
)

// idCache is the application's bounded dedupe cache: the last size ids
// delivered, oldest evicted first. An evicted id is accepted again.
type idCache struct {
	size int
	ids  map[string]struct{}
	ring []string // insertion order; ring[next] is the oldest once full
	next int
}

// newIDCache makes an empty cache of size ids. Its map grows as ids come
// rather than being sized up front: sized for 1024 ids it is ~50 KB per
// client before the first event (loadgen/BENCHMARKS.md).
func newIDCache(size int) *idCache {
	return &idCache{size: size, ids: map[string]struct{}{}}
}

// seen reports whether id is cached; if not, it caches id (evicting the
// oldest when full). A cache of size 0 never rejects.
func (c *idCache) seen(id string) bool {
	if c.size <= 0 {
		return false
	}
	if _, ok := c.ids[id]; ok {
		return true
	}
	if len(c.ring) < c.size {
		c.ring = append(c.ring, id)
	} else {
		delete(c.ids, c.ring[c.next])
		c.ring[c.next] = id
		c.next = (c.next + 1) % c.size
	}
	c.ids[id] = struct{}{}
	return false
}

// seqSet is the set of sequence numbers delivered, as sorted disjoint
// closed intervals: exact whatever the cache forgets, and small while the
// stream is mostly contiguous.
type seqSet struct {
	iv [][2]int64
}

// add inserts n and reports whether it was new.
func (s *seqSet) add(n int64) bool {
	i := sort.Search(len(s.iv), func(i int) bool { return s.iv[i][1] >= n-1 })
	// s.iv[i] is the first interval that ends at or after n-1.
	if i < len(s.iv) && s.iv[i][0] <= n && n <= s.iv[i][1] {
		return false
	}
	switch {
	case i < len(s.iv) && s.iv[i][1] == n-1: // extends iv[i] upwards
		s.iv[i][1] = n
		if i+1 < len(s.iv) && s.iv[i+1][0] == n+1 { // and joins the next
			s.iv[i][1] = s.iv[i+1][1]
			s.iv = append(s.iv[:i+1], s.iv[i+2:]...)
		}
	case i < len(s.iv) && s.iv[i][0] == n+1: // extends iv[i] downwards
		s.iv[i][0] = n
	default:
		s.iv = append(s.iv, [2]int64{})
		copy(s.iv[i+1:], s.iv[i:])
		s.iv[i] = [2]int64{n, n}
	}
	return true
}

// bounds returns the lowest and highest members (ok false when empty).
func (s *seqSet) bounds() (lo, hi int64, ok bool) {
	if len(s.iv) == 0 {
		return 0, 0, false
	}
	return s.iv[0][0], s.iv[len(s.iv)-1][1], true
}

// missing counts the numbers in [lo, hi] not in the set.
func (s *seqSet) missing() int64 {
	lo, hi, ok := s.bounds()
	if !ok {
		return 0
	}
	n := hi - lo + 1
	for _, v := range s.iv {
		n -= v[1] - v[0] + 1
	}
	return n
}

// tracker is one client's event accounting over all its connections: the
// application's bounded id cache decides what is rejected; the exact set of
// sequence numbers tells what the cache let through twice and what was
// never delivered.
type tracker struct {
	cache     *idCache
	delivered seqSet
	total     record.WSEventCounts
}

func newTracker(cacheSize int) *tracker { return &tracker{cache: newIDCache(cacheSize)} }

// deliver accounts one event frame into the connection's counts c and the
// client's totals.
func (t *tracker) deliver(f record.WSFrame, c *record.WSEventCounts) {
	var d record.WSEventCounts
	d.Received = 1
	if t.cache.seen(f.ID) {
		d.DupRejected = 1
	} else {
		_, hi, had := t.delivered.bounds()
		switch {
		case !t.delivered.add(f.Seq):
			d.DupAccepted = 1
		case had && f.Seq > hi+1:
			d.Gaps = 1
			d.Skipped = f.Seq - hi - 1
		}
		if f.Replay && d.DupAccepted == 0 {
			d.Replayed = 1
		}
	}
	c.Add(d)
	t.total.Add(d)
}

// cursor is the resume cursor: the highest sequence number delivered
// minus overlap (ok false before any delivery).
func (t *tracker) cursor(overlap int64) (int64, bool) {
	_, hi, ok := t.delivered.bounds()
	return max(hi-overlap, 0), ok
}
