package loadgen

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// slot is one open-loop request the schedule calls for.
type slot struct {
	seq   uint64
	sched int64
	e     *preparedEntry
}

// startOpen starts the open-loop workers and the pacer that feeds them.
func (r *runner) startOpen(wg *sync.WaitGroup, t0 time.Time) {
	work := make(chan slot) // unbuffered: a send succeeds only when a worker is free
	for w := 0; w < r.cfg.Workers; w++ {
		c := r.addClient(w)
		wg.Go(func() {
			defer c.closeConn()
			var rec record.Request
			for s := range work {
				c.do(&rec, s.e, s.seq, s.sched)
				r.emit(&rec)
			}
		})
	}
	wg.Go(func() {
		defer close(work)
		r.pace(work, t0)
	})
}

// pace walks the schedule t0 + i/Rate. Each slot goes to a free worker; when
// none is free it waits for one until the slot is MaxLateness late and then
// records the slot as not_sent. A slot started late keeps its scheduled
// time, so the lateness shows in its record. When the load stops, every slot
// scheduled before the stop that was not handed to a worker is not_sent.
func (r *runner) pace(work chan<- slot, t0 time.Time) {
	rng := r.rng(r.cfg.Workers)
	interval := float64(time.Second) / r.cfg.Rate
	end := t0.Add(r.cfg.Duration)
	limit := uint64(r.cfg.MaxRequests)
	schedAt := func(i uint64) time.Time { return t0.Add(time.Duration(float64(i) * interval)) }

	wait := time.NewTimer(time.Hour)
	defer wait.Stop()
	for i := uint64(0); ; i++ {
		if i >= limit {
			r.stop(StoppedByCount)
			return
		}
		at := schedAt(i)
		if !at.Before(end) {
			r.stop(StoppedByDuration)
			return
		}
		if d := time.Until(at); d > 0 {
			wait.Reset(d)
			select {
			case <-wait.C:
			case <-r.stopCh:
				r.skipRest(i, limit, schedAt, rng)
				return
			}
		}
		if r.stopped() {
			r.skipRest(i, limit, schedAt, rng)
			return
		}
		s := slot{seq: i + 1, sched: at.UnixNano(), e: r.pick(rng)}
		select {
		case work <- s:
			continue
		default:
		}
		d := time.Until(at.Add(r.cfg.MaxLateness))
		if d <= 0 {
			r.notSent(s, "no free worker within limit lateness")
			continue
		}
		wait.Reset(d)
		select {
		case work <- s:
		case <-wait.C:
			r.notSent(s, "no free worker within limit lateness")
		case <-r.stopCh:
			r.notSent(s, "run stopping")
			r.skipRest(i+1, limit, schedAt, rng)
			return
		}
	}
}

// skipRest records slots from..limit-1 scheduled before the stop as not_sent.
func (r *runner) skipRest(from, limit uint64, schedAt func(uint64) time.Time, rng *rand.Rand) {
	for i := from; i < limit; i++ {
		at := schedAt(i)
		if at.UnixNano() >= r.stopAt {
			return
		}
		r.notSent(slot{seq: i + 1, sched: at.UnixNano(), e: r.pick(rng)}, "run stopping")
	}
}

// notSent records a slot that never went on the wire.
func (r *runner) notSent(s slot, why string) {
	t := now()
	rec := record.Request{
		Type: record.TypeRequest, ID: r.cfg.IDPrefix + "-" + strconv.FormatUint(s.seq, 10),
		Method: s.e.Method, Path: s.e.Path, Worker: -1,
		Scheduled: s.sched, Start: t, End: t,
		Class: record.ClassNotSent, Error: why,
	}
	r.emit(&rec)
}
