package cluster

import (
	"os"
	"slices"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/resources"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// TestMain installs this capability into report, and after it the one
// whose rows C4 reads (resources: fd_growth_per_abort, fds_at_signal),
// as the program's list has them: the tests read its rows, part and
// headline, and judge its claims, as a program does, beside the core's.
func TestMain(m *testing.M) {
	report.Install(Capability, resources.Capability)
	os.Exit(m.Run())
}

func ptr[T any](v T) *T { return &v }

// ev is a lifecycle event at ms milliseconds (as ns).
func ev(ms int64, name string) record.Event { return record.Event{TimeNs: ms * 1e6, Event: name} }

// wexit is a worker_exit at ms with a code or a signal.
func wexit(ms int64, code int, signal string) record.Event {
	e := ev(ms, record.EventWorkerExit)
	if signal != "" {
		e.Signal = signal
	} else {
		e.Code = &code
	}
	return e
}

// clusterMeta is a run of the cluster target: a stop action sent at 2 s
// (grace 8 s), the replica's events and its exit (code < 0: never).
func clusterMeta(evs []record.Event, code int, exitMs int64, kills ...record.Kill) record.Meta {
	grace := 8
	rep := record.Replica{Name: "replica-0", Events: evs}
	if code >= 0 {
		rep.Exited, rep.ExitCode, rep.ExitedNs = true, &code, exitMs*1e6
	}
	return record.Meta{Valid: true, Replicas: []record.Replica{rep},
		Action: &record.Action{Kind: record.ActionStop, StopTimeoutS: &grace, SentNs: 2000 * 1e6, ReturnedNs: exitMs * 1e6, Kills: kills}}
}

// creq is a request from start to end (ms) of a class.
func creq(start, end int64, c record.Class) record.Request {
	return record.Request{Type: record.TypeRequest, Start: start * 1e6, End: end * 1e6, Class: c}
}

func TestComputeCluster(t *testing.T) {
	fork, sig, exit := record.EventFork, record.EventSignal, record.EventExit
	code := func(n int) record.Event { e := ev(6000, exit); e.Code = &n; return e }
	forced := ev(7000, record.EventForcedExit)
	forced.Ms = ptr(4000.0)
	term, kill := record.Kill{TimeNs: 2001 * 1e6, Signal: 15}, record.Kill{TimeNs: 10002 * 1e6, Signal: 9}
	type want struct {
		forks                  int // -1 null
		self, engine           int // -1 null, 0 false, 1 true
		severed                int // -1 null
		forced                 bool
		exits, code0, sigkills int
	}
	tests := []struct {
		name string
		meta record.Meta
		reqs []record.Request
		want want
	}{
		{"C1 blind: forks after the signal, the grace period's SIGKILL ends it and cuts two requests",
			clusterMeta([]record.Event{ev(0, fork), ev(0, fork), ev(2001, sig), wexit(5000, 0, ""), ev(5001, fork), wexit(5002, 0, ""), ev(5003, fork)}, 137, 10003, term, kill),
			[]record.Request{
				creq(9900, 10002, record.ClassReset), // open across the kill: severed
				creq(9950, 10001, record.ClassEOF),   // ended inside [10000, 10002]: severed
				creq(9000, 9300, record.ClassOK),     // ok: not severed
				creq(9000, 9500, record.ClassReset),  // failed before the grace ran out
				creq(10010, 10011, record.ClassRefused)},
			want{forks: 2, self: 0, engine: 1, severed: 2, exits: 2, code0: 2}},
		{"C2 gated: crash, no fork after the signal, exit 0 of its own",
			clusterMeta([]record.Event{ev(0, fork), ev(0, fork), wexit(1000, 0, "SIGKILL"), ev(1002, fork), ev(3001, sig), wexit(5500, 0, ""), wexit(5501, 0, ""), code(0)}, 0, 5600, term),
			nil, want{forks: 0, self: 1, engine: 0, severed: -1, exits: 3, code0: 2, sigkills: 1}},
		{"C3 forced exit: the primary's kill severs what its workers held",
			clusterMeta([]record.Event{ev(0, fork), ev(3000, sig), forced, code(1)}, 1, 7001, term),
			[]record.Request{creq(3500, 7000, record.ClassReset), creq(3500, 6999, record.ClassReset)},
			want{forks: 0, self: 1, engine: 0, severed: 1, forced: true}},
		{"never exited", clusterMeta([]record.Event{ev(0, fork), ev(2001, sig)}, -1, 0, term), nil,
			want{forks: 0, self: -1, engine: -1, severed: -1}},
	}
	null := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	tri := func(p *bool) int {
		switch {
		case p == nil:
			return -1
		case *p:
			return 1
		}
		return 0
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := report.Compute(tt.meta, tt.reqs)
			c := Of(&m)
			if c == nil {
				t.Fatal("no cluster metrics for a run with fork events")
			}
			got := want{forks: null(c.ForksAfterSignal), self: tri(c.EndedBySelf), engine: tri(c.EndedByEngineKill),
				severed: null(c.SeveredAtKill), forced: c.ForcedExit, exits: c.WorkerExits, code0: c.WorkerExitsCode0, sigkills: c.WorkerExitsSIGKILL}
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
			if c.ForcedExit && (c.ForcedExitMs == nil || *c.ForcedExitMs != 4000) {
				t.Errorf("forced_exit_ms %v, want 4000", c.ForcedExitMs)
			}
		})
	}
}

// TestClusterRows: the cluster rows exist only when some run is a
// cluster-target run; a non-cluster run's JSON has none of their keys.
func TestClusterRows(t *testing.T) {
	plain := report.Compute(record.Meta{Valid: true, Replicas: []record.Replica{{Name: "replica-0", Events: []record.Event{ev(0, record.EventUp)}}}}, nil)
	if Of(&plain) != nil {
		t.Fatal("cluster metrics for a run without fork events")
	}
	cl := report.Compute(clusterMeta([]record.Event{ev(0, record.EventFork), wexit(100, 0, "SIGKILL")}, -1, 0), nil)
	has := func(rows []report.MetricDef, name string) bool {
		return slices.ContainsFunc(rows, func(d report.MetricDef) bool { return d.Name == name })
	}
	if has(report.Rows([]*report.Metrics{&plain}), "forks_after_signal") {
		t.Error("a cluster row in a report without cluster runs")
	}
	shown := report.Rows([]*report.Metrics{&plain, &cl})
	for _, d := range rows {
		if !has(shown, d.Name) || d.Optional != Need {
			t.Errorf("row %s: missing or not optional", d.Name)
		}
	}
	if v := mustLookup(t, "resurrection_ms").Get(&cl); !v.Null || v.Why != "NEVER" {
		t.Errorf("resurrection_ms of a crash never replaced: %+v, want NEVER", v)
	}
	if v := mustLookup(t, "forks_after_signal").Get(&cl); !v.Null {
		t.Errorf("forks_after_signal without a signal: %+v, want null", v)
	}
}

// mustLookup is Lookup that must find name.
func mustLookup(t *testing.T, name string) report.MetricDef {
	t.Helper()
	d, ok := report.Lookup(name)
	if !ok {
		t.Fatalf("metric %s unknown", name)
	}
	return d
}
