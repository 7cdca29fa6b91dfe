package check

// check's capacity variant: when requests in flight were dropped and some
// requests had waited for the server before the signal (a fixed number of
// workers or threads, fewer than check's clients, the rest queued in the
// listen backlog), the same stop is measured again at a concurrency the
// server can hold. A server that cuts its queue at the stop is clean there;
// one that cuts work it is doing still drops. The verdict names the
// concurrency at which the same stop was clean, by measurement.

import (
	"context"
	"fmt"
	"github.com/shutdownlab/shutdownlab/gate"
	"io"
	"math"
	"slices"
)

// capacityMaxTries bounds the capacity variant's runs: each halves the
// clients when requests still waited.
const capacityMaxTries = 3

// capacityPlan is what the first verdict says about capacity: whether to
// run the capacity variant, with which signal, from how many clients.
type capacityPlan struct {
	signal      string
	clients     int     // the first try's clients
	clients0    int     // check's clients
	concurrency float64 // served_concurrency at clients0 (median)
}

// planCapacity decides from the check's actions: the first action whose
// runs dropped requests in flight after requests had waited before the
// signal. Its signal is repeated (docker stop's is its stop signal); the
// first try's clients is the concurrency the server served (Little's law),
// at most half of check's.
func planCapacity(actions []actionRuns, clients0 int) (capacityPlan, bool) {
	for _, a := range actions {
		var conc []float64
		queued := false
		for _, r := range a.Runs {
			if val(r.DroppedInflight) > 0 && val(r.WaitedBeforeSignal) > 0 && r.ServedConcurrency != nil {
				queued = true
				conc = append(conc, *r.ServedConcurrency)
			}
		}
		if !queued {
			continue
		}
		slices.Sort(conc)
		c := conc[len(conc)/2]
		first := max(1, min(int(math.Floor(c)), clients0/2))
		return capacityPlan{signal: a.Signal, clients: first, clients0: clients0, concurrency: c}, true
	}
	return capacityPlan{}, false
}

// capacityTry is one run of the capacity variant.
type capacityTry struct {
	clients int
	a       actionRuns
}

// held: no request of the try waited for the server before the signal.
func (t capacityTry) held() bool {
	return len(t.a.Runs) > 0 && val(t.a.Runs[0].WaitedBeforeSignal) == 0
}

// capacityResult is what the capacity variant measured.
type capacityResult struct {
	capacityPlan
	tries []capacityTry
	dir   string
	watch int
}

// last is the last try (the one the result stands on).
func (c capacityResult) last() (capacityTry, bool) {
	if len(c.tries) == 0 {
		return capacityTry{}, false
	}
	return c.tries[len(c.tries)-1], true
}

// explains: at a concurrency where no request waited, the same stop was
// clean — the drops at check's clients were its queue. Clean is what the
// try's own line says (stopsCleanly): a request written while the signal
// was on its way that failed is not a drop (the client cannot tell it
// from the idle-close race; dropAnswer), so it neither makes the try
// unclean nor says the stop cut work in progress.
func (c *capacityResult) explains() bool {
	if c == nil {
		return false
	}
	t, ok := c.last()
	return ok && t.held() && stopsCleanly(t.a)
}

// cutsWork: at a concurrency where no request waited, the same stop
// failed a request written before the signal (dropped_inflight).
func (c *capacityResult) cutsWork() bool {
	t, ok := c.last()
	return ok && t.held() && slices.ContainsFunc(t.a.Runs, func(r runMetrics) bool { return val(r.DroppedInflight) > 0 })
}

// heldClients is the concurrency of the last try when no request waited
// there (0 otherwise): the search then runs at it, so the queue does not
// hide a graceful signal.
func (c *capacityResult) heldClients() int {
	if c == nil {
		return 0
	}
	if t, ok := c.last(); ok && t.held() {
		return t.clients
	}
	return 0
}

// evidence is the measurement the capacity remedy stands on.
func (c capacityResult) evidence() string {
	t, _ := c.last()
	return fmt.Sprintf("capacity variant, %d clients (none waited for the server): signal %s: %s, nothing it had accepted failed (1 run); at %d clients it had served about %.1f at once",
		t.clients, c.signal, exitSummary(t.a), c.clients0, c.concurrency)
}

// runCapacity runs the capacity variant: the plan's signal at the plan's
// clients, halved while requests still wait (at most capacityMaxTries
// runs, down to 1 client).
func runCapacity(ctx context.Context, o checkOpts, plan capacityPlan, sets []string, out string, stdout, stderr io.Writer) (capacityResult, int, error) {
	cr := capacityResult{capacityPlan: plan, watch: searchWatch(o.graceS)}
	code := gate.ExitPass
	for c := plan.clients; len(cr.tries) < capacityMaxTries && ctx.Err() == nil; c = max(1, c/2) {
		fmt.Fprintf(stderr, "check %s: capacity: %s again at %d clients (requests waited for the server at %d; it served about %.1f at once)\n",
			o.image, plan.signal, c, plan.clients0, plan.concurrency)
		sc, err := shortScenario(o, fmt.Sprintf("capacity-c%d", c), "capacity variant", c, []string{plan.signal})
		if err != nil {
			return cr, max(code, gate.ExitHarness), err
		}
		acts, dir, tcode, err := runShort(ctx, o, sc, sets, out, stdout, stderr)
		code, cr.dir = max(code, tcode), dir
		if err != nil || len(acts) == 0 {
			return cr, code, err
		}
		cr.tries = append(cr.tries, capacityTry{clients: c, a: acts[0]})
		if t, _ := cr.last(); t.held() || c == 1 {
			break
		}
	}
	return cr, code, nil
}

// capacityLines are the capacity variant's lines in the verdict.
func capacityLines(c *capacityResult) []finding {
	if c == nil || len(c.tries) == 0 {
		return nil
	}
	title := fmt.Sprintf("capacity (the same %s at fewer clients: requests waited for the server at %d, which served about %.1f at once)", c.signal, c.clients0, c.concurrency)
	var out []finding
	for _, t := range c.tries {
		text, _ := candidateText(t.a, c.watch)
		waited := "none waited for the server"
		if !t.held() && len(t.a.Runs) > 0 {
			waited = fmt.Sprintf("%d waited for the server", val(t.a.Runs[0].WaitedBeforeSignal))
		}
		out = append(out, finding{Action: title, Kind: "capacity", Text: fmt.Sprintf("%d clients (%s): %s", t.clients, waited, text)})
	}
	t, _ := c.last()
	switch {
	case c.explains():
		out = append(out, finding{Action: title, Kind: "capacity", Text: fmt.Sprintf(
			"at %d clients the same stop was clean: the requests dropped at %d clients were waiting for the server (in its listen backlog, behind its workers), not work it was doing",
			t.clients, c.clients0)})
	case c.cutsWork():
		out = append(out, finding{Action: title, Kind: "capacity", Text: fmt.Sprintf(
			"at %d clients, with no request waiting, the same stop still failed work: it cuts work in progress, not only a queue", t.clients)})
	case t.held():
		out = append(out, finding{Action: title, Kind: "capacity", Text: fmt.Sprintf(
			"at %d clients, with no request waiting, no request it had accepted failed, but the stop was not clean (the line above says how): capacity does not explain it", t.clients)})
	default:
		out = append(out, finding{Action: title, Kind: "capacity", Text: fmt.Sprintf(
			"requests still waited at %d clients: capacity was not measured apart from the stop", t.clients)})
	}
	return out
}
