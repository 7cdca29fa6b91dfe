package check

// What check measures after a first verdict that names a defect: the
// capacity variant (when requests had waited for the server) and the
// signal search, in that order — the search runs at a concurrency the
// server holds, so its queue cannot hide a graceful signal, and not at all
// when capacity alone explained the drops.

import (
	"context"
	"fmt"
	"github.com/shutdownlab/shutdownlab/gate"
	"io"
	"strings"
)

// measureMore runs the capacity variant and the signal search as the first
// verdict calls for them, and returns what they measured (with why the
// search did not run, when it did not) and the worst exit code of their
// runs. It records their result directories in o.
func measureMore(ctx context.Context, o *checkOpts, actions []actionRuns, want, sets []string, out string, stdout, stderr io.Writer) (extras, int) {
	var ex extras
	code := gate.ExitPass
	if plan, ok := planCapacity(actions, o.clientCount()); ok {
		cr, ccode, err := runCapacity(ctx, *o, plan, sets, out, stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "shutdownlab: capacity variant: %v\n", err)
		}
		code, o.capacityDir, ex.capacity = max(code, ccode), cr.dir, &cr
	}
	cands := candidates(want, o.signal, o.stopSignal)
	switch {
	case ex.capacity.explains():
		return ex, code // the drops were the queue: no signal is to blame
	case want == nil:
		ex.searchSkipped = "skipped (--search-signals none); run check without --search-signals none, or with --search-signals " + strings.Join(SearchSignals, ",")
		return ex, code
	case len(cands) == 0:
		ex.searchSkipped = fmt.Sprintf("not run: every signal of --search-signals (%s) was measured by check's own variants", strings.Join(want, ","))
		return ex, code
	case ctx.Err() != nil:
		ex.searchSkipped = "not run: interrupted"
		return ex, code
	}
	so := *o
	if c := ex.capacity.heldClients(); c > 0 {
		so.clients = c
	}
	sr, scode, err := runSearch(ctx, so, cands, sets, out, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "shutdownlab: signal search: %v\n", err)
	}
	code, o.searchDir, ex.search = max(code, scode), sr.dir, &sr
	return ex, code
}
