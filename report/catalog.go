package report

import (
	"slices"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/record"
)

// Kind is how a metric's values are counted, compared and printed.
type Kind string

// The metric kinds.
const (
	// KindCount is a whole number of requests, steps or events.
	KindCount Kind = "count"
	// KindMs is a duration in milliseconds.
	KindMs Kind = "ms"
	// KindSeconds is a duration in whole seconds (a configured timeout).
	KindSeconds Kind = "s"
	// KindBool is true or false; spread counts the true runs.
	KindBool Kind = "bool"
	// KindCode is a process exit code; spread lists the distinct codes.
	KindCode Kind = "code"
	// KindRatio is a dimensionless ratio (1.00 = equal).
	KindRatio Kind = "ratio"
)

// Comparison says how two results' values of a metric are compared
// (shutdownlab gate NEW --baseline OLD): which way is worse, and by what
// measure. gate compares exactly the metrics whose Comparison is set.
type Comparison string

// The comparisons.
const (
	// CompareNone: not compared (context, harness cost, or a count
	// where more is not worse).
	CompareNone Comparison = ""
	// CompareLoss: a count where more is worse (lost or failed work),
	// compared by difference.
	CompareLoss Comparison = "loss"
	// CompareLatency: a duration where longer is worse, compared by
	// ratio above a noise floor; a null that means NEVER is worse than
	// any value.
	CompareLatency Comparison = "latency"
	// CompareCodes: any change of the set of values (exit codes,
	// NEVER included) is worse.
	CompareCodes Comparison = "codes"
)

// Need is what a run must have for an optional metric to exist at all.
type Need string

// The needs of the optional metrics.
const (
	// Always: every run has the metric (perhaps null).
	Always Need = ""
	// NeedsWrites: the write reconciliation exists only for runs with
	// write requests (a POST /write in load.mix) or ledger rows.
	NeedsWrites Need = "writes"
	// NeedsBaseline: the baseline ratio exists only in a scenario with
	// a baseline variant (baseline: true).
	NeedsBaseline Need = "baseline"
)

// MetricDef describes one metric: its name (the JSON key), its kind, what a
// null value means in a table, a one-line definition, how two results
// compare on it, and what a run needs for it to exist.
type MetricDef struct {
	Name string
	Kind Kind
	// Null is the word printed for a null value ("NEVER", "n/a", ...);
	// empty when the metric is never null.
	Null string
	// Doc is a one-line definition; docs/metrics.md has the full one.
	Doc string
	// Compare says how gate compares a new result's value with an old
	// one's; CompareNone (the zero value) leaves the metric out.
	Compare Comparison
	// Optional, when set, is what a run needs for the metric to exist.
	// Optional metrics get a table row only when at least one run has a
	// value (the write reconciliation, the baseline ratio), so reports of
	// scenarios without writes or baseline keep their shape; gate refuses
	// an expectation on one the scenario cannot produce.
	Optional Need

	// Read reads the metric from a run's metrics (Get calls it).
	Read func(*Metrics) Value
	// Present, when set, decides an optional row's presence instead of
	// "some run has a value": the probe rows appear for every probe run.
	Present func(*Metrics) bool
}

// Value is one metric value of one run: a number (a bool is 0 or 1) or null.
type Value struct {
	V    float64
	Null bool
	// Why, on a null value, overrides the metric's null word when the
	// value is null for a reason of the run's own (e.g. "n/a (no lifecycle
	// log)": the image does not log what the metric reads).
	Why string
}

// coreDefs are the rows every kind of run shares, in report order
// (by_class.* rows are inserted after "failed" by Rows); defs places the
// capabilities' rows among them.
var coreDefs = []MetricDef{
	{Name: "requests", Kind: KindCount, Doc: "request records (started, including not_sent)", Read: func(m *Metrics) Value { return IntValue(m.Requests) }},
	{Name: "ok", Kind: KindCount, Doc: "requests of class ok (2xx)", Read: func(m *Metrics) Value { return IntValue(m.OK) }},
	{Name: "failed_while_running", Kind: KindCount, Compare: CompareLoss, Doc: "failed requests started before the acted-on replica exited (the headline)", Read: func(m *Metrics) Value { return IntPtrValue(m.FailedWhileRunning) }},
	{Name: "failed", Kind: KindCount, Compare: CompareLoss, Doc: "http_error + refused + reset + eof + timeout", Read: func(m *Metrics) Value { return IntValue(m.Failed) }},
	{Name: "accounting_ok", Kind: KindBool, Doc: "records agree with the agent summary", Read: func(m *Metrics) Value { return BoolValue(m.AccountingOK) }},
	{Name: "dropped_inflight", Kind: KindCount, Compare: CompareLoss, Null: "n/a", Doc: "failed requests fully written before the action was sent and open at it", Read: func(m *Metrics) Value {
		if m.PhaseInconclusive {
			return Value{Null: true, Why: "inconclusive"}
		}
		return IntPtrValue(m.DroppedInflight)
	}},
	{Name: "phase_inconclusive", Kind: KindBool, Doc: "slow signal delivery could hide dropped in-flight work (dropped_inflight is then null)", Read: func(m *Metrics) Value { return BoolValue(m.PhaseInconclusive) }},
	{Name: "failed_in_delivery_window", Kind: KindCount, Compare: CompareLoss, Null: "n/a", Doc: "failed requests written while the signal was on its way (T0..T1)", Read: func(m *Metrics) Value { return IntPtrValue(m.FailedInDeliveryWindow) }},
	{Name: "idle_close_race", Kind: KindCount, Compare: CompareLoss, Null: "n/a", Doc: "failed after the signal: eof/reset on a reused connection, no response byte", Read: func(m *Metrics) Value { return IntPtrValue(m.IdleCloseRace) }},
	{Name: "inflight_at_action", Kind: KindCount, Null: "n/a", Doc: "requests open at the moment the action was sent (any class)", Read: func(m *Metrics) Value { return IntPtrValue(m.InflightAtAction) }},
	{Name: "served_after_signal", Kind: KindCount, Null: "n/a", Doc: "ok requests sent after the signal had certainly arrived (T1)", Read: func(m *Metrics) Value { return IntPtrValue(m.ServedAfterSignal) }},
	{Name: "failed_after_signal", Kind: KindCount, Compare: CompareLoss, Null: "n/a", Doc: "failed requests sent after the signal had certainly arrived (T1)", Read: func(m *Metrics) Value { return IntPtrValue(m.FailedAfterSignal) }},
	{Name: "failed_before_signal", Kind: KindCount, Null: "n/a", Doc: "failed requests that ended before the action was sent", Read: func(m *Metrics) Value { return IntPtrValue(m.FailedBeforeSignal) }},
	{Name: "idle_close_before_signal", Kind: KindCount, Null: "n/a", Doc: "failed before the signal: eof/reset on a reused connection, no response byte (not about shutdown)", Read: func(m *Metrics) Value { return IntPtrValue(m.IdleCloseBeforeSignal) }},
	{Name: "new_conns_after_signal", Kind: KindCount, Null: "n/a", Doc: "connections opened after the signal had certainly arrived (T1) and served ok", Read: func(m *Metrics) Value { return IntPtrValue(m.NewConnsAfterSignal) }},
	{Name: "conns_opened_after_signal", Kind: KindCount, Null: "n/a", Doc: "connections whose dial completed after the signal had certainly arrived (T1), answered or not: a listener was still open", Read: func(m *Metrics) Value { return IntPtrValue(m.ConnsOpenedAfterSignal) }},
	{Name: "failed_after_exit", Kind: KindCount, Null: "n/a", Doc: "failed requests started after the acted-on replica exited", Read: func(m *Metrics) Value { return IntPtrValue(m.FailedAfterExit) }},
	{Name: "delivery_window_ms", Kind: KindMs, Null: "n/a", Doc: "T1 - T0: how long the signal's arrival is uncertain", Read: func(m *Metrics) Value { return FloatPtrValue(m.DeliveryWindowMs) }},
	{Name: "action_call_ms", Kind: KindMs, Null: "n/a", Doc: "duration of the engine call that sent the action", Read: func(m *Metrics) Value { return FloatPtrValue(m.ActionCallMs) }},
	{Name: "signal_seen_ms", Kind: KindMs, Null: "n/a", Doc: "the app logged the signal this long after it was sent", Read: Lifecycle(func(m *Metrics) Value { return FloatPtrValue(m.SignalSeenMs) })},
	{Name: "exit_code", Kind: KindCode, Compare: CompareCodes, Null: "NEVER", Doc: "exit code of the acted-on replica", Read: func(m *Metrics) Value { return IntPtrValue(m.ExitCode) }},
	{Name: "exit_after_ms", Kind: KindMs, Compare: CompareLatency, Null: "NEVER", Doc: "exit time minus the time the action was sent", Read: func(m *Metrics) Value { return FloatPtrValue(m.ExitAfterMs) }},
	{Name: "killed", Kind: KindBool, Doc: "exited with code 137 (SIGKILL)", Read: func(m *Metrics) Value { return BoolValue(m.Killed) }},
	{Name: "dropped_at_kill", Kind: KindCount, Compare: CompareLoss, Null: "n/a", Doc: "failed requests written before T1 and still open at the SIGKILL: accepted work the grace period cut", Read: func(m *Metrics) Value { return IntPtrValue(m.DroppedAtKill) }},
	{Name: "oom_killed", Kind: KindBool, Doc: "the engine's OOMKilled flag", Read: func(m *Metrics) Value { return BoolValue(m.OOMKilled) }},
	{Name: "stop_timeout_s", Kind: KindSeconds, Null: "unset", Doc: "stop grace period in force", Read: func(m *Metrics) Value { return IntPtrValue(m.StopTimeoutS) }},
	{Name: "drain_observed_ms", Kind: KindMs, Null: "none", Doc: "action to the last ok response to work the replica had accepted (client side; direct topology)", Read: func(m *Metrics) Value { return FloatPtrValue(m.DrainObservedMs) }},
	{Name: "lifecycle_log", Kind: KindBool, Doc: "the acted-on replica logged shutdownlab lifecycle events", Read: func(m *Metrics) Value { return BoolValue(m.LifecycleLog) }},
	{Name: "drain_ms", Kind: KindMs, Compare: CompareLatency, Null: "none", Doc: "the app's own drained-in time", Read: Lifecycle(func(m *Metrics) Value { return FloatPtrValue(m.DrainMs) })},
	{Name: "signal_handled", Kind: KindBool, Null: "n/a", Doc: "the app logged a signal event", Read: Lifecycle(func(m *Metrics) Value { return BoolPtrValue(m.SignalHandled) })},
	{Name: "deadline_hit", Kind: KindBool, Null: "n/a", Doc: "the app logged a deadline event", Read: Lifecycle(func(m *Metrics) Value { return BoolPtrValue(m.DeadlineHit) })},
	{Name: "abandoned_inflight", Kind: KindCount, Null: "none", Doc: "in-flight requests cut at the deadline", Read: Lifecycle(func(m *Metrics) Value { return IntPtrValue(m.AbandonedInflight) })},
	{Name: "job_steps", Kind: KindCount, Null: "n/a", Doc: "job.log lines starting with \"step \"", Read: Lifecycle(func(m *Metrics) Value { return IntPtrValue(m.HandlerJobSteps) })},
	{Name: "job_committed", Kind: KindBool, Null: "n/a", Doc: "job.log contains COMMIT", Read: Lifecycle(func(m *Metrics) Value { return BoolPtrValue(m.HandlerJobCommitted) })},
	{Name: "writes", Kind: KindCount, Null: "n/a", Optional: NeedsWrites, Doc: "write requests (POST /write) reconciled with the ledgers", Read: func(m *Metrics) Value { return IntPtrValue(m.Writes) }},
	{Name: "acked_writes", Kind: KindCount, Null: "n/a", Optional: NeedsWrites, Doc: "client saw 2xx, row written", Read: func(m *Metrics) Value { return IntPtrValue(m.AckedWrites) }},
	{Name: "ghost_writes", Kind: KindCount, Compare: CompareLoss, Null: "n/a", Optional: NeedsWrites, Doc: "row written, client saw a failure (a retry duplicates it)", Read: func(m *Metrics) Value { return IntPtrValue(m.GhostWrites) }},
	{Name: "clean_failures", Kind: KindCount, Null: "n/a", Optional: NeedsWrites, Doc: "no row, client saw a failure (safe to retry)", Read: func(m *Metrics) Value { return IntPtrValue(m.CleanFailures) }},
	{Name: "lost_writes", Kind: KindCount, Compare: CompareLoss, Null: "n/a", Optional: NeedsWrites, Doc: "client saw 2xx, no row (a bug; must be 0)", Read: func(m *Metrics) Value { return IntPtrValue(m.LostWrites) }},
	{Name: "unknown_writes", Kind: KindCount, Null: "n/a", Optional: NeedsWrites, Doc: "rows with no response recorded", Read: func(m *Metrics) Value { return IntPtrValue(m.UnknownWrites) }},
	{Name: "duplicate_writes", Kind: KindCount, Null: "n/a", Optional: NeedsWrites, Doc: "ledger lines beyond the first for one id", Read: func(m *Metrics) Value { return IntPtrValue(m.DuplicateWrites) }},
	{Name: "p50_ms", Kind: KindMs, Compare: CompareLatency, Null: "n/a", Doc: "median latency of ok requests", Read: func(m *Metrics) Value { return FloatPtrValue(m.P50Ms) }},
	{Name: "p99_ms", Kind: KindMs, Compare: CompareLatency, Null: "n/a", Doc: "99th percentile latency of ok requests", Read: func(m *Metrics) Value { return FloatPtrValue(m.P99Ms) }},
	{Name: "baseline_p99_ms", Kind: KindMs, Null: "n/a", Optional: NeedsBaseline, Doc: "median p99_ms of the baseline variant", Read: func(m *Metrics) Value { return FloatPtrValue(m.BaselineP99Ms) }},
	{Name: "p99_vs_baseline", Kind: KindRatio, Null: "n/a", Optional: NeedsBaseline, Doc: "p99_ms / baseline_p99_ms", Read: func(m *Metrics) Value { return FloatPtrValue(m.P99VsBaseline) }},
	{Name: "max_ms", Kind: KindMs, Compare: CompareLatency, Null: "n/a", Doc: "slowest ok request", Read: func(m *Metrics) Value { return FloatPtrValue(m.MaxMs) }},
	{Name: "service_ms", Kind: KindMs, Null: "n/a", Doc: "fastest last byte written to first response byte of an ok request before the action: the service time without waiting", Read: func(m *Metrics) Value { return FloatPtrValue(m.ServiceMs) }},
	{Name: "waited_before_signal", Kind: KindCount, Null: "n/a", Doc: "ok requests before the action that waited more than one service time for their first byte (queued for the server)", Read: func(m *Metrics) Value { return IntPtrValue(m.WaitedBeforeSignal) }},
	{Name: "served_concurrency", Kind: KindRatio, Null: "n/a", Doc: "requests the server worked on at once before the action: ok answers per second times the unqueued time to first byte (Little's law)", Read: func(m *Metrics) Value { return FloatPtrValue(m.ServedConcurrency) }},
	{Name: "setup_ms", Kind: KindMs, Doc: "harness time from run start to load start", Read: func(m *Metrics) Value { return FloatValue(m.SetupMs) }},
	{Name: "teardown_ms", Kind: KindMs, Doc: "harness time to remove containers and network", Read: func(m *Metrics) Value { return FloatValue(m.TeardownMs) }},
}

// Defs returns the fixed, ordered list of metrics (without the by_class.*
// rows, whose keys depend on the data; see Rows).
func Defs() []MetricDef { return slices.Clone(catalog()) }

// Value returns the value of the named metric ("by_class.KEY" included; a
// class absent from the run is 0) and whether the name is known.
func (m *Metrics) Value(name string) (Value, bool) {
	if key, ok := strings.CutPrefix(name, ByClassPrefix); ok {
		return IntValue(m.ByClass[key]), true
	}
	for _, d := range catalog() {
		if d.Name == name {
			return d.Read(m), true
		}
	}
	return Value{}, false
}

// ByClassKeys returns the by_class keys a report can produce besides
// http_NNN: every record.Classes class but http_error (which is split by
// status), and "unknown" (a record without a class).
func ByClassKeys() []string {
	var out []string
	for _, c := range record.Classes {
		if c != record.ClassHTTPError {
			out = append(out, string(c))
		}
	}
	return append(out, "unknown")
}

// byClassDef is the row of by_class.KEY: a count, compared as a loss
// unless the class is ok, not_sent or aborted. A failure class (http_NNN, refused,
// reset, eof, timeout) is a loss, and so is a key no known class has
// (something the client saw that was not a success).
func byClassDef(key string) MetricDef {
	d := MetricDef{Name: ByClassPrefix + key, Kind: KindCount, Doc: "requests of class " + key, Compare: CompareLoss,
		Read: func(m *Metrics) Value { return IntValue(m.ByClass[key]) }}
	if key == string(record.ClassOK) || key == string(record.ClassNotSent) || key == string(record.ClassAborted) {
		d.Compare = CompareNone
	}
	return d
}

// isHTTPKey reports whether key is "http_NNN" (three digits).
func isHTTPKey(key string) bool {
	n, ok := strings.CutPrefix(key, "http_")
	return ok && len(n) == 3 && strings.Trim(n, "0123456789") == ""
}

// Lookup returns the definition of the named metric and whether the name
// is known: a catalog metric, or by_class.KEY for a key a report can
// produce (one of ByClassKeys, or http_NNN).
func Lookup(name string) (MetricDef, bool) {
	if key, ok := strings.CutPrefix(name, ByClassPrefix); ok {
		if isHTTPKey(key) || slices.Contains(ByClassKeys(), key) {
			return byClassDef(key), true
		}
		return MetricDef{}, false
	}
	i := slices.IndexFunc(catalog(), func(d MetricDef) bool { return d.Name == name })
	if i < 0 {
		return MetricDef{}, false
	}
	return catalog()[i], true
}

// Rows returns the metric rows for a set of runs, in table order: the fixed
// list with one "by_class.KEY" count row per class key seen in any of the
// runs inserted after "failed". Class keys follow record.Classes order, with
// http_error replaced by its http_NNN keys in status order, and unknown keys
// last.
func Rows(ms []*Metrics) []MetricDef {
	seen := map[string]bool{}
	for _, m := range ms {
		for k := range m.ByClass {
			seen[k] = true
		}
	}
	var keys []string
	for _, c := range record.Classes {
		if c == record.ClassHTTPError {
			var https []string
			for k := range seen {
				if strings.HasPrefix(k, "http_") {
					https = append(https, k)
				}
			}
			slices.Sort(https)
			keys = append(keys, https...)
			for _, k := range https {
				delete(seen, k)
			}
			continue
		}
		if seen[string(c)] {
			keys = append(keys, string(c))
			delete(seen, string(c))
		}
	}
	var rest []string
	for k := range seen {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	keys = append(keys, rest...)

	out := make([]MetricDef, 0, len(catalog())+len(keys))
	for _, d := range catalog() {
		if d.Optional != Always && !anyValue(d, ms) {
			continue
		}
		out = append(out, d)
		if d.Name == "failed" {
			for _, k := range keys {
				out = append(out, byClassDef(k))
			}
		}
	}
	return out
}

// anyValue reports whether some run has a non-null value of d (or, for a
// row with a presence test, passes it).
func anyValue(d MetricDef, ms []*Metrics) bool {
	for _, m := range ms {
		if d.Present != nil {
			if d.Present(m) {
				return true
			}
			continue
		}
		if !d.Get(m).Null {
			return true
		}
	}
	return false
}

// Get returns the metric's value in m.
func (d MetricDef) Get(m *Metrics) Value {
	if d.Read == nil {
		v, _ := m.Value(d.Name)
		return v
	}
	return d.Read(m)
}

// formatRaw prints a value for machine-readable output: empty for null,
// true/false for a bool, the shortest exact decimal otherwise.
func formatRaw(k Kind, v Value) string {
	switch {
	case v.Null:
		return ""
	case k == KindBool:
		return strconv.FormatBool(v.V != 0)
	default:
		return strconv.FormatFloat(v.V, 'f', -1, 64)
	}
}
