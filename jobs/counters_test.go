package jobs

import "testing"

func TestCounters(t *testing.T) {
	var nilC *Counters
	nilC.begin()
	nilC.end(endCut)
	if s := nilC.Snapshot(); s != (CounterSnapshot{}) {
		t.Errorf("nil counters read %+v, want zero", s)
	}
	c := &Counters{}
	for range 4 {
		c.begin()
	}
	c.end(endCut)
	c.end(endCompleted)
	c.end(endFailed)
	if s, want := c.Snapshot(), (CounterSnapshot{Running: 1, Cut: 1, Completed: 1, Failed: 1}); s != want {
		t.Errorf("snapshot %+v, want %+v", s, want)
	}
}
