package scenarios

import (
	"testing"
	"time"
)

func TestStaggerSpan(t *testing.T) {
	ms := func(n int) *Duration { d := Duration(time.Duration(n) * time.Millisecond); return &d }
	tests := []struct {
		name string
		l    LoadSpec
		want time.Duration
	}{
		// The catalog's default: one 300 ms request period.
		{"default mix", LoadSpec{Shape: ShapeClosed, Duration: Seconds(6), Mix: []Request{{Path: "/slow?ms=300", Weight: 1}}}, 300 * time.Millisecond},
		// A weighted mix: (3*100 + 1*500) / 4 = 200 ms.
		{"weighted", LoadSpec{Shape: ShapeClosed, Duration: Seconds(6), Mix: []Request{{Path: "/slow?ms=100", Weight: 3}, {Path: "/write?ms=500", Weight: 1}}}, 200 * time.Millisecond},
		// A path that states no duration (a user image's "/"): 300 ms.
		{"unknown period", LoadSpec{Shape: ShapeClosed, Duration: Seconds(6), Mix: []Request{{Path: "/", Weight: 1}}}, DefaultRequestPeriod},
		// Explicit 0s: lockstep, as before.
		{"explicit zero", LoadSpec{Shape: ShapeClosed, Duration: Seconds(6), Stagger: ms(0), Mix: []Request{{Path: "/slow?ms=300"}}}, 0},
		// Explicit value wins.
		{"explicit", LoadSpec{Shape: ShapeClosed, Duration: Seconds(6), Stagger: ms(50), Mix: []Request{{Path: "/slow?ms=300"}}}, 50 * time.Millisecond},
		// Never longer than the load.
		{"short load", LoadSpec{Shape: ShapeClosed, Duration: Duration(100 * time.Millisecond), Mix: []Request{{Path: "/slow?ms=300"}}}, 100 * time.Millisecond},
		// Open loop is paced otherwise (the probe: capabilities/probe).
		{"open", LoadSpec{Shape: ShapeOpen, Duration: Seconds(6), Mix: []Request{{Path: "/slow?ms=300"}}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.StaggerSpan(); got != tt.want {
				t.Errorf("StaggerSpan = %v, want %v", got, tt.want)
			}
		})
	}
}
