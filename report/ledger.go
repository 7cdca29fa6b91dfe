package report

import (
	"fmt"
	"strings"

	"github.com/shutdownlab/shutdownlab/record"
)

// Writes is the reconciliation of a run's write requests (POST /write...)
// with the union of every replica's ledger (request ids the target appended
// before doing the work). Each write record lands in exactly one of Acked,
// Ghost, Clean, Lost, Unsent or UnknownRecorded; each distinct ledger id is
// Acked, Ghost or Unknown. See docs/metrics.md, "Writes".
type Writes struct {
	// Posts counts the write records (method POST, path /write...).
	Posts int
	// Acked: the client saw 2xx and the row is in a ledger.
	Acked int
	// Ghost: the row is in a ledger but the client saw a failure
	// (http_error, reset, eof, timeout): a client retry would write it
	// twice.
	Ghost int
	// Clean: no row and the client saw a failure: safe to retry.
	Clean int
	// Lost: the client saw 2xx but no ledger has the row. A bug; must be 0.
	Lost int
	// Unsent: not_sent records with no row (never on the wire).
	Unsent int
	// Unknown: rows in a ledger without a response the client recorded:
	// ids with no write record at all, plus not_sent records whose row
	// exists (UnknownRecorded of them).
	Unknown         int
	UnknownRecorded int
	// Duplicates counts ledger lines beyond the first for an id: the same
	// request written twice (a proxy retry that reached two upstreams).
	Duplicates int
	// Rows is the number of distinct ids in the union of the ledgers.
	Rows int
}

// IsWrite reports whether a record is a write request whose id a target
// appends to its ledger: method POST and path /write (with or without a
// query).
func IsWrite(r *record.Request) bool {
	return r.Method == "POST" && (r.Path == "/write" || strings.HasPrefix(r.Path, "/write?"))
}

// Reconcile joins the write records of a run with the ledgers of its
// replicas on request id. It returns nil when the run has no write records
// and no ledger rows. Pure.
func Reconcile(meta record.Meta, reqs []record.Request) *Writes {
	lines := map[string]int{}
	for _, rep := range meta.Replicas {
		for _, id := range rep.Ledger {
			if id = strings.TrimSpace(id); id != "" {
				lines[id]++
			}
		}
	}
	w := &Writes{Rows: len(lines)}
	for _, n := range lines {
		w.Duplicates += n - 1
	}
	seen := map[string]bool{}
	for i := range reqs {
		r := &reqs[i]
		if !IsWrite(r) {
			continue
		}
		w.Posts++
		seen[r.ID] = true
		written := lines[r.ID] > 0
		switch {
		case r.Class == record.ClassOK && written:
			w.Acked++
		case r.Class == record.ClassOK:
			w.Lost++
		case r.Class == record.ClassNotSent && written:
			w.UnknownRecorded++
		case r.Class == record.ClassNotSent:
			w.Unsent++
		case written:
			w.Ghost++
		default:
			w.Clean++
		}
	}
	orphans := 0
	for id := range lines {
		if !seen[id] {
			orphans++
		}
	}
	w.Unknown = orphans + w.UnknownRecorded
	if w.Posts == 0 && w.Rows == 0 {
		return nil
	}
	return w
}

// check returns what does not add up (empty when everything does): every
// write record in one class, every distinct row accounted for.
func (w *Writes) check() []string {
	var out []string
	if s := w.Acked + w.Ghost + w.Clean + w.Lost + w.Unsent + w.UnknownRecorded; s != w.Posts {
		out = append(out, fmt.Sprintf("writes: %d write records but the classes sum to %d", w.Posts, s))
	}
	if s := w.Acked + w.Ghost + w.Unknown; s != w.Rows {
		out = append(out, fmt.Sprintf("writes: %d ledger rows but acked+ghost+unknown is %d", w.Rows, s))
	}
	return out
}

// computeWrites fills the write metrics; a lost write is flagged in the
// notes, loudly, since it means a 2xx was a lie.
func computeWrites(m *Metrics, meta record.Meta, reqs []record.Request) {
	w := Reconcile(meta, reqs)
	if w == nil {
		return
	}
	m.Writes = ptr(w.Posts)
	m.AckedWrites = ptr(w.Acked)
	m.GhostWrites = ptr(w.Ghost)
	m.CleanFailures = ptr(w.Clean)
	m.LostWrites = ptr(w.Lost)
	m.UnknownWrites = ptr(w.Unknown)
	m.DuplicateWrites = ptr(w.Duplicates)
	if w.Lost > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("LOST WRITES: %d write requests got a 2xx but no replica's ledger holds their id (a bug in the service, or a ledger not read back)", w.Lost))
	}
	if bad := w.check(); len(bad) > 0 {
		m.AccountingOK = false
		m.Notes = append(m.Notes, bad...)
	}
}

// applyBaseline sets baseline_p99_ms and p99_vs_baseline on every run of
// every non-baseline variant, when the result has a baseline variant
// (Variant.IsBaseline) with at least one valid run with a p99. The
// baseline is the median p99_ms of those runs.
func applyBaseline(res *Result) {
	var p99s []Value
	for i := range res.Variants {
		v := &res.Variants[i]
		if !v.IsBaseline() {
			continue
		}
		for _, m := range v.ValidMetrics() {
			p99s = append(p99s, FloatPtrValue(m.P99Ms))
		}
	}
	s := SpreadOf(MetricDef{Name: "p99_ms", Kind: KindMs}, p99s)
	if s.Median == nil || *s.Median <= 0 {
		return
	}
	base := *s.Median
	for i := range res.Variants {
		v := &res.Variants[i]
		if v.IsBaseline() {
			continue
		}
		for j := range v.Runs {
			m := &v.Runs[j].Metrics
			m.BaselineP99Ms = ptr(base)
			if m.P99Ms != nil {
				m.P99VsBaseline = ptr(*m.P99Ms / base)
			}
		}
	}
}

// IsBaseline reports whether v is its scenario's steady-state baseline
// variant (the scenario has baseline: true; the variant runs the base spec
// with no action, and its runs' record.Meta.Baseline is set). It is the one
// test for it: code that judges or compares variants asks it rather than
// the label.
func (v *Variant) IsBaseline() bool {
	return len(v.Runs) > 0 && v.Runs[0].Meta.Baseline
}
