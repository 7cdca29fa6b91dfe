package resourcemetrics

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/record"
)

// tick returns the samples of one tick of a replica
// (internal/fixture).
var tick = fixture.ResourceTick

func cat(parts ...[]record.ResourceSample) []record.ResourceSample {
	var out []record.ResourceSample
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestComputeResources(t *testing.T) {
	// Load 1000..5000; the signal, when there is one, sent at 3000 (no app
	// event: the window's upper end, with engine kill events absent, is the
	// send's return).
	meta := func(action bool) record.Meta {
		m := record.Meta{LoadStartNs: 1000, LoadEndNs: 5000,
			Replicas: []record.Replica{{Name: "replica-0"}, {Name: "replica-1"}}}
		if action {
			m.Action = &record.Action{Kind: record.ActionSignal, Signal: "SIGTERM", SentNs: 3000, ReturnedNs: 3000}
		}
		return m
	}
	// aborts returns n aborted requests ended at end, and one ok request.
	aborts := func(n int, end int64) []record.Request {
		out := []record.Request{{Class: record.ClassOK, Start: 1100, End: 1200}}
		for range n {
			out = append(out, record.Request{Class: record.ClassAborted, Hostile: record.HostileAbort, Start: end - 50, End: end})
		}
		return out
	}
	type want struct {
		present              bool
		fdsAtSignal, threads *int
		growth               *float64
		peak                 *int
	}
	samples := cat(
		tick("replica-0", 900, 10, 5),     // before load start: 15 fds (not the baseline)
		tick("replica-1", 950, 99),        // another replica: never counted
		tick("replica-0", 2000, 20, 5),    // 25: the first tick of the load, the baseline
		tick("replica-0", 3000, 30, 5),    // at the signal: 35
		tick("replica-0", 3100, 40),       // after it: one process left
		tick("replica-0", 4900, 40, 0, 0), // last before load end: 40, 3 processes
		tick("replica-0", 5100, 1),
	)
	tests := []struct {
		name    string
		reqs    []record.Request
		action  bool
		samples []record.ResourceSample
		want    want
	}{
		{name: "no samples", reqs: aborts(5, 2000), action: true, want: want{}},
		{name: "samples of another replica only", reqs: aborts(5, 2000), action: true, samples: tick("replica-1", 900, 3), want: want{}},
		{name: "signal before load end: the window ends at it", reqs: aborts(5, 2000), action: true, samples: samples,
			want: want{present: true, fdsAtSignal: ptr(35), threads: ptr(4), growth: ptr(2.0), peak: ptr(30720)}},
		{name: "aborts after the signal are not the window's", reqs: append(aborts(4, 2000), aborts(6, 4000)[1:]...), action: true, samples: samples,
			want: want{present: true, fdsAtSignal: ptr(35), threads: ptr(4), growth: ptr(2.5), peak: ptr(30720)}},
		{name: "no aborted request: growth null", reqs: aborts(0, 2000), action: true, samples: samples,
			want: want{present: true, fdsAtSignal: ptr(35), threads: ptr(4), peak: ptr(30720)}},
		{name: "no action: the whole load, nothing at the signal", reqs: aborts(25, 4500), samples: samples,
			want: want{present: true, growth: ptr(0.6), peak: ptr(30720)}},
		{name: "only one tick in the window: it is both ends", reqs: aborts(5, 2000), action: true, samples: cat(tick("replica-0", 2000, 7), tick("replica-0", 4000, 9)),
			want: want{present: true, fdsAtSignal: ptr(7), threads: ptr(2), growth: ptr(0.0), peak: ptr(10240)}},
		{name: "no tick inside the window: growth null", reqs: aborts(5, 2000), action: true, samples: cat(tick("replica-0", 900, 7), tick("replica-0", 4000, 9)),
			want: want{present: true, fdsAtSignal: ptr(7), threads: ptr(2), peak: ptr(10240)}},
		// Measured (C4, pipeline): the workers still opening their files
		// before the load (42 fds), 58 once it ran, 59 at the signal, 40
		// aborts: 0.025 per abort, not the 0.425 a pre-load baseline gave.
		{name: "a target still starting before the load is not a leak", reqs: aborts(40, 2900), action: true,
			samples: cat(tick("replica-0", 880, 42), tick("replica-0", 1050, 58), tick("replica-0", 2950, 59)),
			want:    want{present: true, fdsAtSignal: ptr(59), threads: ptr(2), growth: ptr(0.025), peak: ptr(10240)}},
		{name: "fds fall: negative growth", reqs: aborts(4, 4000), samples: cat(tick("replica-0", 1000, 9), tick("replica-0", 5000, 1)),
			want: want{present: true, growth: ptr(-2.0), peak: ptr(10240)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rm := Compute(meta(tt.action), tt.reqs, tt.samples)
			if (rm != nil) != tt.want.present {
				t.Fatalf("ResourceMetrics = %+v, want present %v", rm, tt.want.present)
			}
			if rm == nil {
				return
			}
			checkP(t, "fds_at_signal", rm.FDsAtSignal, tt.want.fdsAtSignal)
			checkP(t, "threads_at_signal", rm.ThreadsAtSignal, tt.want.threads)
			checkP(t, "fd_growth_per_abort", rm.FDGrowthPerAbort, tt.want.growth)
			checkP(t, "peak_rss_bytes", rm.PeakRSSBytes, tt.want.peak)
		})
	}
}

func checkP[T comparable](t *testing.T, name string, got, want *T) {
	t.Helper()
	switch {
	case got == nil && want == nil:
	case got == nil || want == nil:
		t.Errorf("%s = %v, want %v", name, got, want)
	case *got != *want:
		t.Errorf("%s = %v, want %v", name, *got, *want)
	}
}
