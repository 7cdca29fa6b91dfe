package docker

import (
	"slices"
	"testing"
)

// TestNewKillWatch: a channel-fed watch returns every event sent before
// Stop, including those still buffered when Stop is called, and ends when
// its channel is closed.
func TestNewKillWatch(t *testing.T) {
	want := []KillEvent{{TimeNs: 1, Signal: 15}, {TimeNs: 2, Signal: 9}}
	ch := make(chan KillEvent, len(want))
	w := NewKillWatch(ch)
	for _, e := range want {
		ch <- e
	}
	got, err := w.Stop(0)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Stop = %v, %v; want %v", got, err, want)
	}

	closed := make(chan KillEvent)
	close(closed)
	if got, err := NewKillWatch(closed).Stop(0); len(got) != 0 || err != nil {
		t.Errorf("closed channel: Stop = %v, %v; want nothing", got, err)
	}
}
