package targetapp

import (
	"sync"
	"time"
)

// admission is the handshake-rate capacity of /events (UPGRADES_PER_S): a
// token bucket that refills rate tokens per second and holds at most a
// tenth of a second's worth (at least one), so no 100 ms window admits
// much more than rate/10 upgrades. An upgrade takes a token or is refused.
type admission struct {
	mu     sync.Mutex
	rate   float64 // tokens per second
	burst  float64 // bucket size
	tokens float64
	last   time.Time
}

// newAdmission returns a full bucket for rate upgrades per second.
func newAdmission(rate int) *admission {
	burst := max(1, float64(rate)/10)
	return &admission{rate: float64(rate), burst: burst, tokens: burst}
}

// allow reports whether an upgrade arriving at now is admitted, and takes
// its token if so.
func (a *admission) allow(now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.last.IsZero() && now.After(a.last) {
		a.tokens = min(a.burst, a.tokens+now.Sub(a.last).Seconds()*a.rate)
	}
	if a.last.IsZero() || now.After(a.last) {
		a.last = now
	}
	if a.tokens < 1 {
		return false
	}
	a.tokens--
	return true
}
