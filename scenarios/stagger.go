package scenarios

import (
	"net/url"
	"strconv"
	"time"
)

// DefaultRequestPeriod is the request period assumed for a mix entry whose
// path does not state its duration (no "ms" query parameter): the published
// rig's 300 ms request.
const DefaultRequestPeriod = 300 * time.Millisecond

// RequestPeriod is the weighted mean duration of the mix's requests, read
// from each path's "ms" query parameter (the target protocol's /slow and
// /write take that long), DefaultRequestPeriod for a path without one.
func (l LoadSpec) RequestPeriod() time.Duration {
	var sum, weights float64
	for _, r := range l.Mix {
		d := DefaultRequestPeriod
		if u, err := url.Parse(r.Path); err == nil {
			if ms, err := strconv.Atoi(u.Query().Get("ms")); err == nil && ms >= 0 {
				d = time.Duration(ms) * time.Millisecond
			}
		}
		w := float64(max(r.Weight, 1))
		sum += w * float64(d)
		weights += w
	}
	if weights == 0 {
		return DefaultRequestPeriod
	}
	return time.Duration(sum / weights)
}

// StaggerSpan is the span over which the closed-loop clients' first
// requests are spread: load.stagger when set, else one request period
// (RequestPeriod), never more than the load's duration. Open-loop loads,
// and those of a kind without such clients (LoadKindDef.NoStagger: the
// probe, ws), are not staggered (0).
func (l LoadSpec) StaggerSpan() time.Duration {
	if l.Shape != ShapeClosed || l.kindDef().NoStagger {
		return 0
	}
	if l.Stagger != nil {
		return l.Stagger.D()
	}
	return min(l.RequestPeriod(), l.Duration.D())
}
