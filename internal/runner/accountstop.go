package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// accountStopSlack is how long past its stop timeout a replica stopped for
// the ledger may take to be gone (docker stop's SIGKILL, the engine).
const accountStopSlack = 15 * time.Second

// ledgerStops is, by replica index, when the runner stopped a replica
// still running after the load so a ledger could be read
// (stopForAccounting); collect records nothing of it from then on.
type ledgerStops map[int]int64

// stopForAccounting stops every replica still running once the load has
// ended (docker stop: SIGTERM, the container's own stop timeout, SIGKILL),
// all at once, each bounded by its stop timeout plus accountStopSlack, so
// that no live worker holds a job when the ledger is read. It is not a
// measurement: x.caps.ledgerStops keeps when each was stopped, and collect
// records nothing of the replica from then on (its exit, its later
// events). A replica that does not stop is an error: its jobs would count
// as running.
func (x *run) stopForAccounting(ctx context.Context) error {
	eng := x.r.eng
	x.obj.mu.Lock()
	reps := append(x.obj.replicas[:0:0], x.obj.replicas...)
	x.obj.mu.Unlock()
	type result struct {
		i   int
		ns  int64
		d   time.Duration
		err error
	}
	results := make(chan result, len(reps))
	var wg sync.WaitGroup
	for i, c := range reps {
		st, err := eng.Inspect(ctx, c.ID)
		if err != nil {
			results <- result{i: i, err: err}
			continue
		}
		if !st.Running {
			continue
		}
		grace := 10 * time.Second // the engine's default
		if st.StopTimeout != nil {
			grace = time.Duration(*st.StopTimeout) * time.Second
		}
		wg.Go(func() {
			sctx, cancel := context.WithTimeout(ctx, grace+accountStopSlack)
			defer cancel()
			t0 := time.Now()
			err := eng.Stop(sctx, c.ID, nil)
			results <- result{i, t0.UnixNano(), time.Since(t0), err}
		})
	}
	wg.Wait()
	close(results)
	if x.caps.ledgerStops == nil {
		x.caps.ledgerStops = ledgerStops{}
	}
	var errs []error
	for r := range results {
		if r.ns > 0 {
			x.caps.ledgerStops[r.i] = r.ns
		}
		alias := replicaAlias(r.i)
		if r.err != nil {
			errs = append(errs, fmt.Errorf("stopping %s for the job ledger: %w", alias, r.err))
			continue
		}
		x.r.opts.Progress.Logf("%s stopped for the job ledger (docker stop returned after %s)", alias, r.d.Round(time.Millisecond))
	}
	if len(errs) > 0 {
		return invalidf("%v", joinProblems(errs))
	}
	return nil
}

// eventsBefore is events without those at or after ns (0: all of them).
func eventsBefore(events []record.Event, ns int64) []record.Event {
	if ns == 0 {
		return events
	}
	out := events[:0:0]
	for _, e := range events {
		if e.TimeNs < ns {
			out = append(out, e)
		}
	}
	return out
}
