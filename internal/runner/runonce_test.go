package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Agent output lines for fake agents.
const (
	startLine = `{"type":"start","load_start_ns":$NOW}`
	probeLine = `{"type":"probe","kind":"idle","id":"r1-probe"}`
)

// reqLine is request record i of class c.
func reqLine(i int, c string) string {
	return fmt.Sprintf(`{"type":"req","id":"r1-%d","method":"GET","path":"/slow","start_ns":1,"end_ns":2,"class":%q}`, i, c)
}

// summaryLine is an agent summary counting started requests, all ok.
func summaryLine(started int) string {
	return fmt.Sprintf(`{"type":"summary","started":%d,"by_class":{"ok":%d},"load_start_ns":1,"load_end_ns":2,"stopped_by":"duration"}`, started, started)
}

// fakeAgent prints its start line and requests ok lines at once, then
// its summary (claiming started requests) when it ends: by itself after
// 150 ms with code, or on SIGTERM with 0.
func fakeAgent(requests, started, code int) fakeScript {
	out := []string{startLine}
	for i := range requests {
		out = append(out, reqLine(i, "ok"))
	}
	sum := []string{summaryLine(started)}
	return fakeScript{stdout: out, stderr: []string{"loadagent: closed loop"}, exitAfter: 150 * time.Millisecond,
		exitCode: code, final: sum, on: map[string]fakeReaction{"SIGTERM": {stdout: sum}}}
}

// fakeProbe prints its start line and n probe lines, then exits 0.
func fakeProbe(n int) fakeScript {
	out := []string{startLine}
	for range n {
		out = append(out, probeLine)
	}
	return fakeScript{stdout: out, exitAfter: 100 * time.Millisecond}
}

// happyReplica logs "up" and exits 0 5 ms after SIGTERM.
func happyReplica() fakeScript {
	s := replica(exitsOn("SIGTERM", 0, 5*time.Millisecond))
	s.files = map[string]string{"/data/ledger.log": "r1-0\nr1-1\n"}
	return s
}

// runFake runs one repetition of scenario name on a fake engine with these
// scripts (the action 20 ms into the load, a 300 ms window) and returns
// its Meta and directory. Nothing may be left on the engine (unless its
// teardown was made to fail).
func runFake(t *testing.T, f *fakeEngine, ctx context.Context, name string, sets ...string) (record.Meta, string) {
	t.Helper()
	v := fakeVariant(t, name, 300*time.Millisecond, sets...)
	v.Spec.Action.At = scenarios.Duration(20 * time.Millisecond)
	r := newFakeRunner(t, f)
	dir := filepath.Join(t.TempDir(), "run-001")
	done := make(chan record.Meta, 1)
	go func() { done <- r.runOnce(ctx, v, 1, dir) }()
	var m record.Meta
	select {
	case m = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("runOnce did not return")
	}
	if f.fail["Sweep"] != nil { // the teardown was made to fail
		delete(f.fail, "Sweep")
		f.Sweep(context.Background(), nil)
	}
	if live := f.live(); len(live) > 0 {
		t.Errorf("left on the engine: %v", live)
	}
	return m, dir
}

// TestRunOnceValidity: a run is valid only when nothing went wrong and its
// output accounts for itself, and an invalid run says why.
func TestRunOnceValidity(t *testing.T) {
	tests := []struct {
		name     string
		scenario string
		agent    fakeScript
		replica  fakeScript
		fail     string // "Method role" made to fail
		want     string // "" = valid; else a substring of the reason
	}{
		{name: "valid", agent: fakeAgent(3, 3, 0)},
		{name: "accounting mismatch", agent: fakeAgent(2, 3, 0), want: "accounting: "},
		{name: "agent exits non-zero", agent: fakeAgent(3, 3, 2), want: "load agent exited with code 2 (last lines: loadagent: closed loop)"},
		{name: "engine error on kill", agent: fakeAgent(3, 3, 0), fail: "Kill replica-0", want: "action signal: " + errEngine.Error()},
		{name: "network not created", agent: fakeAgent(3, 3, 0), fail: "CreateNetwork", want: errEngine.Error()},
		{name: "teardown fails", agent: fakeAgent(3, 3, 0), fail: "Sweep", want: errEngine.Error()},
		{name: "replica never ready", agent: fakeAgent(3, 3, 0), replica: fakeScript{stdout: []string{"boot"}, exitAfter: time.Millisecond, exitCode: 3},
			want: "replica-0 exited with code 3 before it was ready; last lines: boot"},
		{name: "probe: one line", scenario: "p5-idle-socket", agent: fakeProbe(1)},
		{name: "probe: no line", scenario: "p5-idle-socket", agent: fakeProbe(0), want: "probe: no probe line"},
		{name: "probe: two lines", scenario: "p5-idle-socket", agent: fakeProbe(2), want: "probe: 2 probe lines, want exactly one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := tt.replica
			if rep.stdout == nil {
				rep = happyReplica()
			}
			f := newFakeEngine(map[string]fakeScript{"replica-0": rep, "agent": tt.agent})
			if tt.fail != "" {
				f.fail[tt.fail] = errEngine
			}
			m, dir := runFake(t, f, context.Background(), cmpOr(tt.scenario, "direct-inflight"))
			if tt.want == "" {
				if !m.Valid || m.InvalidReason != "" || m.Incomplete {
					t.Fatalf("valid %v incomplete %v reason %q, want a valid run", m.Valid, m.Incomplete, m.InvalidReason)
				}
				checkValidRun(t, m, dir)
				return
			}
			if m.Valid || !strings.Contains(m.InvalidReason, tt.want) || m.Incomplete {
				t.Errorf("valid %v incomplete %v reason %q, want invalid with %q", m.Valid, m.Incomplete, m.InvalidReason, tt.want)
			}
		})
	}
}

// checkValidRun checks what a valid fake run recorded.
func checkValidRun(t *testing.T, m record.Meta, dir string) {
	t.Helper()
	if m.LoadStartNs == 0 || m.Action == nil || len(m.Replicas) != 1 {
		t.Fatalf("load start %d, action %+v, %d replicas", m.LoadStartNs, m.Action, len(m.Replicas))
	}
	if m.LoadKind == record.LoadKindProbe {
		if m.Probe() == nil || m.Agent != nil {
			t.Errorf("probe run: probe %+v, agent summary %+v", m.Probe(), m.Agent)
		}
	} else if m.Agent == nil || m.Agent.Started != 3 || m.Probe() != nil {
		t.Errorf("agent run: summary %+v, probe %+v", m.Agent, m.Probe())
	}
	rep := m.Replicas[0]
	if !rep.Exited || rep.ExitCode == nil || *rep.ExitCode != 0 {
		t.Errorf("replica %+v: want exited 0", rep)
	}
	b, err := os.ReadFile(filepath.Join(dir, recordsFile))
	if err != nil || !strings.HasPrefix(string(b), `{"type":"start"`) {
		t.Errorf("records.jsonl %q, %v", b, err)
	}
	for _, name := range []string{agentLogFile, "app-replica-0.log"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestRunOnceInterrupted: Ctrl-C during the action ends the run at once,
// still collects the agent's summary (it was told to stop), and keeps the
// run as incomplete, never valid.
func TestRunOnceInterrupted(t *testing.T) {
	f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "agent": fakeAgent(3, 3, 0)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.hook = func(call string) {
		if strings.HasPrefix(call, "Kill replica-0") {
			cancel()
		}
	}
	m, _ := runFake(t, f, ctx, "direct-inflight")
	if m.Valid || !m.Incomplete || m.InvalidReason != "interrupted" || m.Agent == nil {
		t.Errorf("valid %v incomplete %v reason %q summary %v; want an incomplete run with the agent's summary",
			m.Valid, m.Incomplete, m.InvalidReason, m.Agent != nil)
	}
	if i := slices.Index(f.Calls(), "Kill agent SIGTERM"); i < 0 {
		t.Errorf("the agent was not told to stop: %q", f.Calls())
	}
}

// TestRunOnceOutputError: agent output that cannot be written (a full
// disk) ends the run, and is its reason whatever else failed after it.
func TestRunOnceOutputError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full to make a full disk with")
	}
	f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "agent": fakeAgent(3, 3, 0)})
	f.fail["Kill replica-0"] = errEngine
	v := fakeVariant(t, "direct-inflight", 300*time.Millisecond)
	v.Spec.Action.At = scenarios.Duration(20 * time.Millisecond)
	dir := t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(dir, recordsFile)); err != nil {
		t.Fatal(err)
	}
	m := newFakeRunner(t, f).runOnce(context.Background(), v, 1, dir)
	if want := "writing records.jsonl: no space left on device"; m.Valid || m.InvalidReason != want || m.Incomplete {
		t.Errorf("valid %v incomplete %v reason %q, want invalid with %q", m.Valid, m.Incomplete, m.InvalidReason, want)
	}
	if live := f.live(); len(live) > 0 {
		t.Errorf("left on the engine: %v", live)
	}
}

// endLines is a Progress that keeps each run's outcome line.
type endLines struct {
	Progress
	lines *[]string
}

func (p endLines) RunEnd(outcome string) { *p.lines = append(*p.lines, outcome) }

// TestRunScenarioFake runs a whole scenario (three variants) on the fake
// engine: every run is written (events.json) and reported in one line.
func TestRunScenarioFake(t *testing.T) {
	f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "agent": fakeAgent(3, 3, 0)})
	r := newFakeRunner(t, f)
	var lines []string
	r.opts.Progress = endLines{Progress: Discard, lines: &lines}
	r.opts.Sets = []string{"runs=1", "action.at=20ms", "observe.window=300ms"}
	sc, err := scenarios.Find("direct-inflight")
	if err != nil {
		t.Fatal(err)
	}
	oc, err := r.RunScenario(context.Background(), sc)
	if err != nil || oc.Runs != 3 || oc.Invalid != 0 || oc.Incomplete != 0 {
		t.Fatalf("outcome %+v, %v; want 3 valid runs", oc, err)
	}
	events, _ := filepath.Glob(filepath.Join(oc.Dir, "*", "run-001", "events.json"))
	if len(events) != 3 {
		t.Errorf("events.json files %q, want one per variant", events)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "3 requests, 0 failed, exit 0 after ") {
			t.Errorf("outcome line %q", l)
		}
	}
	if len(lines) != 3 || len(f.live()) != 0 {
		t.Errorf("outcome lines %q, left on the engine %v", lines, f.live())
	}
}

// TestRunOnceCaddy: topology caddy starts the proxy with its generated
// configuration (saved and hashed in the record), waits until it serves,
// and saves its log; a proxy that never serves makes the run invalid.
func TestRunOnceCaddy(t *testing.T) {
	for _, ready := range []bool{true, false} {
		t.Run(fmt.Sprint("ready=", ready), func(t *testing.T) {
			proxy := fakeScript{stdout: []string{"{\"msg\":\"" + caddyReadyLine + "\"}"}}
			if !ready {
				proxy = fakeScript{stdout: []string{"config error"}, exitAfter: time.Millisecond, exitCode: 1}
			}
			f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "replica-1": happyReplica(),
				"proxy": proxy, "agent": fakeAgent(3, 3, 0)})
			m, dir := runFake(t, f, context.Background(), "roll-behind-caddy")
			if !ready {
				if m.Valid || !strings.Contains(m.InvalidReason, "proxy never became ready") {
					t.Errorf("valid %v reason %q, want the proxy named", m.Valid, m.InvalidReason)
				}
				return
			}
			if !m.Valid || m.Topology != record.TopologyCaddy || m.ProxyConfigSHA256 == "" || len(m.Replicas) != 2 {
				t.Errorf("valid %v (%s) topology %q sha %q replicas %d", m.Valid, m.InvalidReason, m.Topology, m.ProxyConfigSHA256, len(m.Replicas))
			}
			for _, name := range []string{"proxy.json", "proxy.log"} {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		})
	}
}
