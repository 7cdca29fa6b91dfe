package report

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// ms converts milliseconds to the nanosecond timestamps records use.
func ms(n float64) int64 { return int64(n * 1e6) }

// req is a request of the given class over [start, end] ms; unless it was
// refused or never sent, its last byte was written at start.
func req(class record.Class, start, end float64) record.Request {
	r := record.Request{Type: "req", Class: class, Start: ms(start), End: ms(end)}
	if class != record.ClassRefused && class != record.ClassNotSent {
		r.Written = r.Start
	}
	return r
}

func httpReq(status int, start, end float64) record.Request {
	r := req(record.ClassHTTPError, start, end)
	r.Status = status
	return r
}

// actionAt is an action that fired at t ms on replica 0.
func actionAt(t float64) *record.Action {
	return &record.Action{Kind: "signal", Signal: "SIGTERM", SentNs: ms(t)}
}

// phases is the five phase metrics, -1 for null.
type phases struct{ dropped, inflight, servedAfter, failedAfter, failedBefore int }

func phasesOf(m Metrics) phases {
	v := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	return phases{v(m.DroppedInflight), v(m.InflightAtAction), v(m.ServedAfterSignal), v(m.FailedAfterSignal), v(m.FailedBeforeSignal)}
}

func TestPhasesNullWithoutAction(t *testing.T) {
	reqs := []record.Request{req(record.ClassReset, 900, 1100)}
	for name, meta := range map[string]record.Meta{
		"no action":         {},
		"action never sent": {Action: &record.Action{Kind: "stop"}},
	} {
		m := Compute(meta, reqs)
		if got := phasesOf(m); got != (phases{-1, -1, -1, -1, -1}) {
			t.Errorf("%s: phases = %+v, want all null", name, got)
		}
	}
}

func TestCounts(t *testing.T) {
	reqs := []record.Request{
		req(record.ClassOK, 0, 10), req(record.ClassOK, 0, 20),
		httpReq(502, 0, 5), httpReq(503, 0, 5), httpReq(503, 0, 5),
		req(record.ClassRefused, 0, 1), req(record.ClassReset, 0, 1), req(record.ClassEOF, 0, 1),
		req(record.ClassTimeout, 0, 1), req(record.ClassNotSent, 0, 0),
	}
	m := Compute(record.Meta{}, reqs)
	if m.Requests != 10 || m.OK != 2 || m.Failed != 7 {
		t.Errorf("requests/ok/failed = %d/%d/%d, want 10/2/7", m.Requests, m.OK, m.Failed)
	}
	want := map[string]int{"ok": 2, "http_502": 1, "http_503": 2, "refused": 1, "reset": 1, "eof": 1, "timeout": 1, "not_sent": 1}
	if !reflect.DeepEqual(m.ByClass, want) {
		t.Errorf("by_class = %v, want %v", m.ByClass, want)
	}
	sum := 0
	for _, n := range m.ByClass {
		sum += n
	}
	if sum != m.Requests {
		t.Errorf("sum(by_class) = %d, requests %d", sum, m.Requests)
	}
}

func TestAccounting(t *testing.T) {
	reqs := []record.Request{req(record.ClassOK, 0, 1), httpReq(502, 0, 1), req(record.ClassNotSent, 0, 0)}
	agree := &record.Summary{Started: 3, ByClass: map[record.Class]int{"ok": 1, "http_error": 1, "not_sent": 1}}
	tests := []struct {
		name  string
		reqs  []record.Request
		agent *record.Summary
		ok    bool
		note  string
	}{
		// The summary agrees with the records.
		{"agree", reqs, agree, true, ""},
		// No summary: nothing to cross-check, still ok but noted.
		{"no summary", reqs, nil, true, "no agent summary"},
		// The agent started one more request than the records hold.
		{"started mismatch", reqs, &record.Summary{Started: 4, ByClass: map[record.Class]int{"ok": 2, "http_error": 1, "not_sent": 1}}, false, "agent started 4, records hold 3"},
		// Same total, different class split.
		{"class mismatch", reqs, &record.Summary{Started: 3, ByClass: map[record.Class]int{"ok": 2, "not_sent": 1}}, false, "class http_error: agent 0, records 1"},
		// The agent's own numbers do not add up.
		{"summary inconsistent", reqs, &record.Summary{Started: 3, ByClass: map[record.Class]int{"ok": 1}}, false, "by_class sums to 1"},
		// A record of a class the agent never writes.
		{"unknown class", []record.Request{req("bogus", 0, 1)}, &record.Summary{Started: 1, ByClass: map[record.Class]int{"bogus": 1}}, false, "unknown class"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Compute(record.Meta{Agent: tt.agent}, tt.reqs)
			if m.AccountingOK != tt.ok {
				t.Errorf("accounting_ok = %v, want %v (notes %q)", m.AccountingOK, tt.ok, m.Notes)
			}
			notes := strings.Join(m.Notes, "; ")
			if tt.note == "" && notes != "" || !strings.Contains(notes, tt.note) {
				t.Errorf("notes = %q, want %q", notes, tt.note)
			}
		})
	}
}

func intp(n int) *int           { return &n }
func floatp(f float64) *float64 { return &f }

func TestReplicaMetrics(t *testing.T) {
	sigterm := record.Event{Event: "signal", Signal: "SIGTERM"}
	up := []record.Event{{Event: "up"}}
	tests := []struct {
		name  string
		meta  record.Meta
		check func(t *testing.T, m Metrics)
	}{
		// Never exited: exit_code and exit_after_ms are null (NEVER).
		{"never", record.Meta{Action: actionAt(1000), Replicas: []record.Replica{{Name: "a"}}}, func(t *testing.T, m Metrics) {
			if m.ExitCode != nil || m.ExitAfterMs != nil || m.Killed {
				t.Errorf("exit = %v after %v killed %v, want NEVER", m.ExitCode, m.ExitAfterMs, m.Killed)
			}
		}},
		// SIGKILLed after docker stop -t 10; -t wins over the config's timeout.
		{"killed", record.Meta{
			Action:   &record.Action{Kind: "stop", StopTimeoutS: intp(10), SentNs: ms(1000)},
			Replicas: []record.Replica{{Exited: true, ExitCode: intp(137), ExitedNs: ms(11260), StopTimeoutS: intp(1)}},
		}, func(t *testing.T, m Metrics) {
			if m.ExitCode == nil || *m.ExitCode != 137 || !m.Killed || *m.ExitAfterMs != 10260 || *m.StopTimeoutS != 10 {
				t.Errorf("got code %v killed %v after %v stop_timeout %v", m.ExitCode, m.Killed, m.ExitAfterMs, m.StopTimeoutS)
			}
		}},
		// A signal action reports the container's configured stop timeout.
		{"config timeout", record.Meta{Action: actionAt(1000), Replicas: []record.Replica{{StopTimeoutS: intp(1)}}}, func(t *testing.T, m Metrics) {
			if m.StopTimeoutS == nil || *m.StopTimeoutS != 1 {
				t.Errorf("stop_timeout_s = %v, want 1", m.StopTimeoutS)
			}
		}},
		// The acted-on replica is Action.Replica, not replica 0.
		{"replica index", record.Meta{
			Action:   &record.Action{Kind: "signal", Replica: 1, SentNs: ms(1000)},
			Replicas: []record.Replica{{Exited: true, ExitCode: intp(0), ExitedNs: ms(1100)}, {Exited: true, ExitCode: intp(1), ExitedNs: ms(6226), OOMKilled: true}},
		}, func(t *testing.T, m Metrics) {
			if *m.ExitCode != 1 || *m.ExitAfterMs != 5226 || !m.OOMKilled || m.Killed {
				t.Errorf("got code %v after %v oom %v", *m.ExitCode, *m.ExitAfterMs, m.OOMKilled)
			}
		}},
		// Deadline hit: abandoned in-flight from the deadline event; drain_ms from drained.
		{"deadline", record.Meta{Action: actionAt(1000), Replicas: []record.Replica{{Events: []record.Event{
			{Event: "up"}, sigterm, {Event: "drained", Ms: floatp(2002.5)}, {Event: "deadline", Inflight: intp(3)}, {Event: "deadline", Inflight: intp(9)},
		}}}}, func(t *testing.T, m Metrics) {
			if !*m.SignalHandled || !*m.DeadlineHit || *m.AbandonedInflight != 3 || *m.DrainMs != 2002.5 || !m.LifecycleLog {
				t.Errorf("got signal %v deadline %v abandoned %v drain %v", m.SignalHandled, m.DeadlineHit, m.AbandonedInflight, m.DrainMs)
			}
		}},
		// No lifecycle events at all (a user image that does not log):
		// the lifecycle metrics are not measured (null), not false.
		{"silent", record.Meta{Action: actionAt(1000), Replicas: []record.Replica{{HandlerJobLog: jobLog(3, false)}}}, func(t *testing.T, m Metrics) {
			if m.LifecycleLog || m.SignalHandled != nil || m.DeadlineHit != nil || m.AbandonedInflight != nil || m.DrainMs != nil || m.HandlerJobSteps != nil || m.HandlerJobCommitted != nil {
				t.Errorf("got %+v", m)
			}
			for _, name := range []string{"signal_handled", "deadline_hit", "drain_ms", "job_steps", "job_committed", "abandoned_inflight", "signal_seen_ms"} {
				if v, _ := m.Value(name); !v.Null || v.Why != NoLifecycleLog {
					t.Errorf("%s = %+v, want null %q", name, v, NoLifecycleLog)
				}
			}
		}},
		// A lifecycle log without a signal event: a measured negative.
		{"no handler", record.Meta{Action: actionAt(1000), Replicas: []record.Replica{{Events: []record.Event{{Event: "up"}}}}}, func(t *testing.T, m Metrics) {
			if !m.LifecycleLog || *m.SignalHandled || *m.DeadlineHit || m.DrainMs != nil || *m.HandlerJobSteps != 0 {
				t.Errorf("got %+v", m)
			}
		}},
		// A job cut after 23 steps, no COMMIT.
		{"job cut", record.Meta{Replicas: []record.Replica{{Events: up, HandlerJobLog: jobLog(23, false)}}}, func(t *testing.T, m Metrics) {
			if *m.HandlerJobSteps != 23 || *m.HandlerJobCommitted {
				t.Errorf("job = %d steps committed %v", m.HandlerJobSteps, m.HandlerJobCommitted)
			}
		}},
		// A finished job.
		{"job done", record.Meta{Replicas: []record.Replica{{Events: up, HandlerJobLog: jobLog(30, true)}}}, func(t *testing.T, m Metrics) {
			if *m.HandlerJobSteps != 30 || !*m.HandlerJobCommitted {
				t.Errorf("job = %d steps committed %v", m.HandlerJobSteps, m.HandlerJobCommitted)
			}
		}},
		// No action: replica 0 is described; exited but exit_after_ms null.
		{"no action", record.Meta{Replicas: []record.Replica{{Exited: true, ExitCode: intp(2), ExitedNs: ms(5)}}}, func(t *testing.T, m Metrics) {
			if *m.ExitCode != 2 || m.ExitAfterMs != nil {
				t.Errorf("got code %v after %v", m.ExitCode, m.ExitAfterMs)
			}
		}},
		// No replicas at all: nothing to describe, noted.
		{"no replicas", record.Meta{Action: actionAt(1)}, func(t *testing.T, m Metrics) {
			if m.ExitCode != nil || len(m.Notes) == 0 {
				t.Errorf("got code %v notes %q", m.ExitCode, m.Notes)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, Compute(tt.meta, nil)) })
	}
}

func jobLog(steps int, commit bool) []string {
	var out []string
	for i := 1; i <= steps; i++ {
		out = append(out, "step "+strconv.Itoa(i)+"/30")
	}
	if commit {
		out = append(out, "COMMIT")
	}
	return out
}

func TestLatency(t *testing.T) {
	var reqs []record.Request
	for i := 100; i >= 1; i-- { // unsorted on purpose
		reqs = append(reqs, req(record.ClassOK, 0, float64(i)))
	}
	reqs = append(reqs, req(record.ClassTimeout, 0, 5000)) // not ok: ignored
	m := Compute(record.Meta{SetupMs: 12.5, TeardownMs: 800}, reqs)
	if *m.P50Ms != 50 || *m.P99Ms != 99 || *m.MaxMs != 100 {
		t.Errorf("p50/p99/max = %v/%v/%v, want 50/99/100", *m.P50Ms, *m.P99Ms, *m.MaxMs)
	}
	if m.SetupMs != 12.5 || m.TeardownMs != 800 {
		t.Errorf("setup/teardown = %v/%v", m.SetupMs, m.TeardownMs)
	}
	m = Compute(record.Meta{}, []record.Request{req(record.ClassReset, 0, 1)})
	if m.P50Ms != nil || m.P99Ms != nil || m.MaxMs != nil {
		t.Errorf("latency without ok requests should be null")
	}
}

func TestComputeDoesNotModifyInput(t *testing.T) {
	reqs := []record.Request{req(record.ClassOK, 30, 40), req(record.ClassOK, 0, 10)}
	orig := append([]record.Request(nil), reqs...)
	Compute(record.Meta{Action: actionAt(35)}, reqs)
	if !reflect.DeepEqual(reqs, orig) {
		t.Errorf("Compute modified its input")
	}
}

// TestEveryDefHasAValue sets every field to a distinct non-zero value (see
// filled), then flips each bool alone, and checks every definition reads
// exactly its own field: a getter that reads the wrong field (or none, or
// is null where a value exists) fails. The parts are the tests' own
// (withParts); package capabilities' tests check the program's.
func TestEveryDefHasAValue(t *testing.T) {
	withParts(t)
	m, want := filled(t)
	for _, d := range Defs() {
		v := d.Get(m)
		if v.Null || v.V != want[d.Name] {
			t.Errorf("%s reads %+v, want %g (its own field)", d.Name, v, want[d.Name])
		}
		if byName, ok := m.Value(d.Name); !ok || byName != v {
			t.Errorf("Metrics.Value(%q) = %+v %v, want %+v", d.Name, byName, ok, v)
		}
	}
	// Bools are (nearly) all true above, so a getter reading another bool
	// passed: flip each alone.
	for _, f := range metricFields(t) {
		if f.typ.Kind() != reflect.Bool && (f.typ.Kind() != reflect.Pointer || f.typ.Elem().Kind() != reflect.Bool) {
			continue
		}
		m, _ := filled(t)
		fv := f.field(m)
		if fv.Kind() == reflect.Pointer {
			fv = fv.Elem()
		}
		fv.SetBool(!fv.Bool())
		if v, _ := m.Value(f.name); v.Null || (v.V != 0) != fv.Bool() {
			t.Errorf("%s with its field alone set to %v reads %+v", f.name, fv.Bool(), v)
		}
	}
	if _, ok := m.Value("nope"); ok {
		t.Errorf("unknown metric has a value")
	}
}

// TestMetricsDocumented keeps docs/metrics.md in step with the metric list.
func TestMetricsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/metrics.md")
	if err != nil {
		t.Skip("docs/metrics.md not found:", err)
	}
	for _, d := range Defs() {
		if !strings.Contains(string(b), "| `"+d.Name+"` | "+string(d.Kind)+" |") {
			t.Errorf("docs/metrics.md has no row for %s (kind %s)", d.Name, d.Kind)
		}
	}
}
