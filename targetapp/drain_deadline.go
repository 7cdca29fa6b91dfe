package targetapp

import (
	"context"
	"time"
)

// drainDeadline is the DRAIN_MS deadline as a context that a later signal
// can re-arm (REPEAT_SIGNAL=restart, the bug of claim J5): the context
// ends DRAIN_MS after the signal, or after the latest restart.
type drainDeadline struct {
	d     time.Duration
	timer *time.Timer
}

// newDrainDeadline returns a context that ends d after at (real time),
// the deadline that can re-arm it, and the cancel func to release it.
// With d == 0 the context never ends by itself and restart does nothing.
func newDrainDeadline(at time.Time, d time.Duration) (context.Context, *drainDeadline, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	dd := &drainDeadline{d: d}
	if d > 0 {
		dd.timer = time.AfterFunc(time.Until(at.Add(d)), cancel)
	}
	return ctx, dd, func() {
		if dd.timer != nil {
			dd.timer.Stop()
		}
		cancel()
	}
}

// restart re-arms the deadline to d from now. It reports false, and does
// nothing, when there is no deadline or it has already passed.
func (dd *drainDeadline) restart() bool {
	if dd.timer == nil || !dd.timer.Stop() {
		return false
	}
	dd.timer.Reset(dd.d)
	return true
}
