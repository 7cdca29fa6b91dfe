package report

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// Metrics are the measurements of one run. Every field is a pure function of
// the run's record.Meta and its []record.Request (see Compute); nullable
// measurements are pointers and encode as JSON null. docs/metrics.md defines
// each one; the JSON keys are the metric names.
type Metrics struct {
	// Requests counts every request record, including not_sent.
	Requests int `json:"requests"`
	// OK counts requests of class ok.
	OK int `json:"ok"`
	// Failed counts http_error + refused + reset + eof + timeout.
	Failed int `json:"failed"`
	// ByClass counts requests per class, http_error split by status
	// (http_502, http_503, ...).
	ByClass map[string]int `json:"by_class"`
	// AccountingOK is false when the records disagree with the agent's
	// summary, or hold a request of an unknown class.
	AccountingOK bool `json:"accounting_ok"`

	// FailedWhileRunning counts failed requests started before the
	// acted-on replica exited (all failed requests when it did not): what
	// the service did to its clients, without the refusals that follow an
	// exit on a direct topology.
	FailedWhileRunning *int `json:"failed_while_running"`

	// The phase metrics (see shutdown.DeliveryWindow and PhaseOf), null
	// without an action that fired. Every failed request is in exactly one
	// of FailedBeforeSignal, DroppedInflight, FailedInDeliveryWindow and
	// FailedAfterSignal.
	DroppedInflight        *int `json:"dropped_inflight"`
	FailedInDeliveryWindow *int `json:"failed_in_delivery_window"`
	InflightAtAction       *int `json:"inflight_at_action"`
	ServedAfterSignal      *int `json:"served_after_signal"`
	FailedAfterSignal      *int `json:"failed_after_signal"`
	FailedBeforeSignal     *int `json:"failed_before_signal"`
	// PhaseInconclusive is true when slow signal delivery could hide
	// dropped in-flight work (see judgeInconclusive); DroppedInflight is
	// then null.
	PhaseInconclusive bool `json:"phase_inconclusive"`
	// IdleCloseRace counts the failed_after_signal requests with the
	// idle-close signature (IsIdleCloseRace).
	IdleCloseRace *int `json:"idle_close_race"`
	// IdleCloseBeforeSignal counts the failed_before_signal requests with
	// the idle-close signature: a server that closes keep-alive
	// connections without saying so, a trouble unrelated to shutdown.
	IdleCloseBeforeSignal *int `json:"idle_close_before_signal"`
	// NewConnsAfterSignal counts the connections the clients opened after
	// the signal had certainly arrived (T1) that were served ok: the server
	// still accepted new connections (a propagation delay, or a restart).
	NewConnsAfterSignal *int `json:"new_conns_after_signal"`
	// ConnsOpenedAfterSignal counts the connections whose dial completed
	// after T1, whatever became of their requests: a listener was still
	// open (the server's, or one it kept across a reload).
	ConnsOpenedAfterSignal *int `json:"conns_opened_after_signal"`
	// DroppedAtKill counts the failed requests written before T1 that were
	// still open when the acted-on replica was SIGKILLed: accepted work the
	// grace period cut. Null when it was not SIGKILLed.
	DroppedAtKill *int `json:"dropped_at_kill"`
	// DeliveryWindowMs is T1 - T0 of the delivery window.
	DeliveryWindowMs *float64 `json:"delivery_window_ms"`
	// DrainObservedMs is the drain seen from the client side: from the
	// action until the last ok response to a request the replica had
	// accepted (see observedDrain); direct topology only.
	DrainObservedMs *float64 `json:"drain_observed_ms"`
	// FailedAfterExit counts failed requests started at or after the
	// acted-on replica exited (nothing was there to serve them); null when
	// it never exited or there was no action.
	FailedAfterExit *int `json:"failed_after_exit"`
	// SignalRef names the upper bound of the delivery window (see
	// shutdown.DeliveryWindow): "app", "engine_event", "engine", "stop_return",
	// "exit" or "sent"; empty without an action.
	SignalRef string `json:"signal_ref,omitempty"`
	// ActionCallMs is how long the engine call of the action took
	// (ReturnedNs - SentNs); for docker stop it includes the whole stop.
	ActionCallMs *float64 `json:"action_call_ms"`
	// SignalSeenMs is when the acted-on replica logged the signal, relative
	// to the send time; null when it logged none.
	SignalSeenMs *float64 `json:"signal_seen_ms"`

	// The acted-on replica's outcome.
	ExitCode     *int     `json:"exit_code"`
	ExitAfterMs  *float64 `json:"exit_after_ms"`
	Killed       bool     `json:"killed"`
	OOMKilled    bool     `json:"oom_killed"`
	StopTimeoutS *int     `json:"stop_timeout_s"`

	// LifecycleLog is true when the acted-on replica logged shutdownlab
	// lifecycle events (the built-in targets do; a user's image usually
	// does not). Without it the metrics below are null: not measured.
	LifecycleLog        bool     `json:"lifecycle_log"`
	DrainMs             *float64 `json:"drain_ms"`
	SignalHandled       *bool    `json:"signal_handled"`
	DeadlineHit         *bool    `json:"deadline_hit"`
	AbandonedInflight   *int     `json:"abandoned_inflight"`
	HandlerJobSteps     *int     `json:"job_steps"`
	HandlerJobCommitted *bool    `json:"job_committed"`

	// Latency of ok requests (End - Start), null without ok requests.
	P50Ms *float64 `json:"p50_ms"`
	P99Ms *float64 `json:"p99_ms"`
	MaxMs *float64 `json:"max_ms"`

	// How the server served before the action (computeStopShape): its
	// service time, the requests that waited for it (a queue), and how
	// many requests it worked on at once. Null without ok requests before
	// the action.
	ServiceMs          *float64 `json:"service_ms"`
	WaitedBeforeSignal *int     `json:"waited_before_signal"`
	ServedConcurrency  *float64 `json:"served_concurrency"`

	// Write reconciliation (see Reconcile); absent (null) for runs without
	// write requests or ledger rows.
	Writes          *int `json:"writes,omitempty"`
	AckedWrites     *int `json:"acked_writes,omitempty"`
	GhostWrites     *int `json:"ghost_writes,omitempty"`
	CleanFailures   *int `json:"clean_failures,omitempty"`
	LostWrites      *int `json:"lost_writes,omitempty"`
	UnknownWrites   *int `json:"unknown_writes,omitempty"`
	DuplicateWrites *int `json:"duplicate_writes,omitempty"`

	// BaselineP99Ms is the median p99_ms of the scenario's baseline variant
	// (valid runs); P99VsBaseline is this run's p99_ms divided by it. Both
	// absent without a baseline; set by Load, not Compute.
	BaselineP99Ms *float64 `json:"baseline_p99_ms,omitempty"`
	P99VsBaseline *float64 `json:"p99_vs_baseline,omitempty"`

	// parts are the capabilities' metrics of the run, by capability
	// (parts.go): the probe's, the cluster's, the WebSockets', the
	// jobs'... each read through its accessor (WS, Jobs...), absent when
	// the run does not have them, and written into the JSON here, flat.
	parts map[Need]any

	// Harness cost, copied from the Meta.
	SetupMs    float64 `json:"setup_ms"`
	TeardownMs float64 `json:"teardown_ms"`

	// Notes explain accounting errors and other oddities; not a metric.
	Notes []string `json:"notes,omitempty"`
}

// IsFailed reports whether class c counts as a failure of the service; it
// is record.Class.Failed (an unknown class counts as failed, and fails
// accounting).
func IsFailed(c record.Class) bool { return c.Failed() }

// ClassKey is the by_class key of a request: its class, except that
// http_error is split by status as "http_NNN" ("http_000" without a status).
func ClassKey(r *record.Request) string {
	if r.Class == record.ClassHTTPError {
		return fmt.Sprintf("http_%03d", r.Status)
	}
	if r.Class == "" {
		return "unknown"
	}
	return string(r.Class)
}

// Compute derives the Metrics of one run from its Meta and its request
// records. It is pure: no clock, no I/O, and reqs is not modified.
func Compute(meta record.Meta, reqs []record.Request) Metrics { return ComputeWith(meta, reqs, nil) }

// ComputeWith is Compute with the capabilities' inputs of the run
// (Capability.Input; by capability, a missing one nil): the WebSocket
// driver's lines, the resource samples. It is pure, and modifies neither
// reqs nor the inputs.
func ComputeWith(meta record.Meta, reqs []record.Request, inputs map[Need]RunInput) Metrics {
	m := Metrics{ByClass: map[string]int{}, AccountingOK: true, SetupMs: meta.SetupMs, TeardownMs: meta.TeardownMs}
	var tally record.Tally
	var okLat []float64
	for i := range reqs {
		r := &reqs[i]
		m.Requests++
		m.ByClass[ClassKey(r)]++
		tally.AddRequest(r.Class)
		if r.Class == record.ClassOK {
			m.OK++
			// A hostile client's latency is its own slowness (a body
			// trickled at 1 byte/s), not the service's: not a percentile.
			if r.Hostile == "" {
				okLat = append(okLat, float64(r.LatencyNs())/1e6)
			}
		}
		if r.Class.Failed() {
			m.Failed++
		}
	}
	in := ComputeInput{Meta: meta, Requests: reqs, Core: &m}
	checkAccounting(in, inputs, &tally)
	computePhases(&m, meta, reqs)
	computeStopShape(&m, meta, reqs)
	computeReplica(&m, meta)
	computeWrites(&m, meta, reqs)
	computeParts(in, inputs)
	if len(okLat) > 0 {
		sort.Float64s(okLat)
		m.P50Ms = ptr(stat.Quantile(0.5, stat.Empirical, okLat, nil))
		m.P99Ms = ptr(stat.Quantile(0.99, stat.Empirical, okLat, nil))
		m.MaxMs = ptr(okLat[len(okLat)-1])
	}
	return m
}

// computeParts sets in.Core's part of every installed capability whose
// Compute finds its metrics in the run, and appends their notes.
func computeParts(in ComputeInput, inputs map[Need]RunInput) {
	m := in.Core
	for _, c := range installed() {
		if c.Compute == nil {
			continue
		}
		in.Input = inputs[c.Name]
		if part, notes := c.Compute(in); part != nil {
			m.SetPart(c.Name, part)
			m.Notes = append(m.Notes, notes...)
		}
	}
}

// checkAccounting applies the run's accounting rule to its summary (or
// its capability's own lines) and its records: the rule of the first
// capability whose Accounting claims the run (the WebSocket driver counts
// streams, the probe its one socket), else the agent's
// (record.CheckAccounting). Each problem is a note and makes accounting
// fail. A run saved without a summary only gets a note: there is nothing
// to cross-check.
func checkAccounting(in ComputeInput, inputs map[Need]RunInput, t *record.Tally) {
	m := in.Core
	errs, claimed := []error(nil), false
	for _, c := range installed() {
		if c.Accounting == nil {
			continue
		}
		in.Input = inputs[c.Name]
		if errs, claimed = c.Accounting(in, t); claimed {
			break
		}
	}
	if !claimed {
		errs = record.CheckAccounting(in.Meta.Agent, t)
	}
	for _, err := range errs {
		if errors.Is(err, record.ErrNoSummary) {
			m.Notes = append(m.Notes, "no agent summary: accounting not cross-checked")
			continue
		}
		m.AccountingOK = false
		m.Notes = append(m.Notes, "accounting: "+err.Error())
	}
}

// computeReplica fills the acted-on replica's metrics.
func computeReplica(m *Metrics, meta record.Meta) {
	i := shutdown.ActedReplica(meta)
	if i < 0 {
		if len(meta.Replicas) > 0 || meta.Action != nil {
			m.Notes = append(m.Notes, "acted-on replica not in meta.replicas")
		}
		return
	}
	rep := meta.Replicas[i]
	if rep.Exited && rep.ExitCode != nil {
		m.ExitCode = ptr(*rep.ExitCode)
		m.Killed = *rep.ExitCode == 137
		if meta.Action != nil && meta.Action.SentNs > 0 && rep.ExitedNs > 0 {
			m.ExitAfterMs = ptr(float64(rep.ExitedNs-meta.Action.SentNs) / 1e6)
		}
	}
	m.OOMKilled = rep.OOMKilled
	if len(rep.EnvOverridden) > 0 {
		m.Notes = append(m.Notes, envOverriddenNote(rep))
	}
	switch {
	case meta.Action != nil && meta.Action.Kind == record.ActionStop && meta.Action.StopTimeoutS != nil:
		m.StopTimeoutS = ptr(*meta.Action.StopTimeoutS)
	case rep.StopTimeoutS != nil:
		m.StopTimeoutS = ptr(*rep.StopTimeoutS)
	}
	m.LifecycleLog = len(rep.Events) > 0
	if !m.LifecycleLog {
		return
	}
	handled, deadline, committed, steps := false, false, false, 0
	for _, e := range rep.Events {
		switch e.Event {
		case record.EventSignal:
			handled = true
		case record.EventDrained:
			if m.DrainMs == nil && e.Ms != nil {
				m.DrainMs = ptr(*e.Ms)
			}
		case record.EventDeadline:
			if !deadline && e.Inflight != nil {
				m.AbandonedInflight = ptr(*e.Inflight)
			}
			deadline = true
		}
	}
	for _, line := range rep.HandlerJobLog {
		if strings.HasPrefix(line, "step ") {
			steps++
		}
		if strings.Contains(line, "COMMIT") {
			committed = true
		}
	}
	m.SignalHandled, m.DeadlineHit = &handled, &deadline
	m.HandlerJobSteps, m.HandlerJobCommitted = &steps, &committed
}

// envOverriddenNote says which variables of a user image's own
// environment the scenario's target.env replaced: the image did not run
// exactly as it ships, by the user's choice.
func envOverriddenNote(rep record.Replica) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(rep.EnvOverridden)) {
		parts = append(parts, fmt.Sprintf("%s=%s (image: %s)", k, rep.Env[k], rep.EnvOverridden[k]))
	}
	return "target.env overrides the image's own environment: " + strings.Join(parts, ", ")
}

func ptr[T any](v T) *T { return &v }
