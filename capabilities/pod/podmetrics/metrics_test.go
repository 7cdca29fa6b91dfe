package podmetrics

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// Times of the fixture termination, ns: deletion at 1 s, the proxy's
// deregistration sent at 2 s and acknowledged at 2.1 s, the hook ended
// and the stop signal sent at 4 s, SIGKILL at 9 s, exit at 9.05 s.
const (
	deleted = 1_000_000_000
	sent    = 2_000_000_000
	acked   = 2_100_000_000
	signal  = 4_000_000_000
	kill    = 9_000_000_000
	exited  = 9_050_000_000
)

func meta(topology string, killSent int64, dereg *record.Deregistration) record.Meta {
	code := 137
	return record.Meta{Topology: topology,
		Replicas: []record.Replica{{Name: "replica-0", Exited: true, ExitCode: &code, ExitedNs: exited}},
		Action: (&record.Action{Kind: "terminate", SentNs: signal, Deregister: dereg}).With(
			&record.Termination{DeletedNs: deleted, GraceS: 8, Signal: "SIGTERM",
				Hook: &record.HookRun{Kind: "sleep", SleepMs: 3000, EndNs: signal}, KillAtNs: kill, KillSentNs: killSent})}
}

func failed(end int64, class record.Class, reused bool) record.Request {
	return record.Request{Start: end - 1_000_000, End: end, Class: class, Reused: reused}
}

// sentEnd is a failed request written at sent that ended at end.
func sentEnd(sent, end int64, class record.Class) record.Request {
	return record.Request{Start: sent - 100_000, Written: sent, End: end, Class: class}
}

// TestClassify: each failed request falls under exactly one rule: by when
// it ended, when it was sent (fully written: the proxy routes it then),
// and, for the proxy's reload, its signature.
func TestClassify(t *testing.T) {
	dereg := &record.Deregistration{SentNs: sent, AckedNs: acked}
	late := &record.Deregistration{SentNs: sent, AckedNs: signal + 500}
	for _, tt := range []struct {
		name string
		meta record.Meta
		req  record.Request
		want rule
	}{
		{"ended before the deletion", meta("caddy", kill, dereg), failed(deleted-1, record.ClassHTTPError, false), ruleBeforeDeletion},
		{"a proxy close before the deletion stays before", meta("caddy", kill, dereg), failed(deleted-1, record.ClassEOF, true), ruleBeforeDeletion},
		{"a proxy close before the reload was sent is no reload", meta("caddy", kill, dereg), failed(sent-1, record.ClassEOF, true), rulePropagation},
		{"a reused connection reset at the reload", meta("caddy", kill, dereg), failed(acked, record.ClassReset, true), ruleProxyReload},
		{"a fresh connection reset at the reload", meta("caddy", kill, dereg), failed(acked-1, record.ClassReset, false), ruleProxyReload},
		{"a dial the proxy reset at the reload", meta("caddy", kill, dereg), failed(acked-1, record.ClassRefused, false), ruleProxyReload},
		{"a dial refused before the reload was sent is no reload", meta("caddy", kill, dereg), failed(sent-1, record.ClassRefused, false), rulePropagation},
		{"no proxy: a refused dial is the pod's", meta("", kill, dereg), failed(acked-1, record.ClassRefused, false), rulePropagation},
		{"a 502 at the reload is the pod's", meta("caddy", kill, dereg), failed(acked-1, record.ClassHTTPError, false), rulePropagation},
		{"an eof after a response byte is no proxy close", meta("caddy", kill, dereg), record.Request{Start: acked - 5, FirstByte: acked - 2, End: acked - 1, Class: record.ClassEOF}, rulePropagation},
		{"no proxy, no reload", meta("", kill, late), sentEnd(signal-1, signal+1, record.ClassEOF), ruleDrain},
		{"sent while registered, failed while the hook ran", meta("caddy", kill, dereg), sentEnd(sent, sent+1, record.ClassHTTPError), rulePropagation},
		{"sent while registered, after the signal", meta("caddy", kill, late), sentEnd(signal+1, signal+2, record.ClassHTTPError), rulePropagation},
		{"routed before the ack, failed after it", meta("caddy", kill, late), sentEnd(signal+400, signal+900, record.ClassHTTPError), rulePropagation},
		{"sent after the endpoint was gone", meta("caddy", kill, dereg), sentEnd(acked, acked+1, record.ClassHTTPError), ruleElsewhere},
		{"in flight at the signal", meta("caddy", kill, late), sentEnd(signal-1, signal+1, record.ClassHTTPError), ruleDrain},
		{"in flight at the signal, sent after the ack: elsewhere", meta("caddy", kill, dereg), sentEnd(signal-1, signal+1, record.ClassHTTPError), ruleElsewhere},
		{"never acknowledged: still registered", meta("caddy", kill, &record.Deregistration{SentNs: sent}), sentEnd(signal+1, signal+2, record.ClassHTTPError), rulePropagation},
		{"no deregistration at all: still registered", meta("caddy", kill, nil), sentEnd(signal+1, signal+2, record.ClassHTTPError), rulePropagation},
		{"at the SIGKILL", meta("caddy", kill, dereg), failed(kill, record.ClassHTTPError, false), ruleAfterKill},
		{"at the SIGKILL, no proxy", meta("", kill, dereg), failed(kill, record.ClassEOF, false), ruleAfterKill},
		{"no SIGKILL sent", meta("caddy", 0, dereg), sentEnd(kill-10, kill, record.ClassHTTPError), ruleElsewhere},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := classify(tt.meta, &tt.req); got != tt.want {
				t.Errorf("classify = %d, want %d", got, tt.want)
			}
		})
	}
}

// withNewPod is meta with a new pod that joined (its reload sent at
// joined) before the deletion, as with before_deletion.
func withNewPod(joined int64) record.Meta {
	m := meta("caddy", kill, &record.Deregistration{SentNs: sent, AckedNs: acked})
	m.Action.Termination().NewPod = &record.NewPod{Name: "replica-2", Upstream: "replica-2:8080", StartedNs: 100,
		ReadyNs: 200, AvailableNs: 200, RegisterSentNs: joined, RegisteredNs: joined + 50}
	return m
}

// TestClassifyNewPod: a rolling update's new pod. A request the proxy
// answered naming the new pod is the new pod's, whenever it was sent
// (before the deletion too: with before_deletion the pod joins first);
// the new pod's joining is a reload whose closes are the proxy's.
func TestClassifyNewPod(t *testing.T) {
	const joined = deleted - 500_000_000
	at := func(end int64, class record.Class, upstream string) record.Request {
		return record.Request{Start: end - 1_000, Written: end - 900, End: end, Class: class, Upstream: upstream}
	}
	for _, tt := range []struct {
		name string
		req  record.Request
		want rule
	}{
		{"a 502 naming the new pod, before the deletion", at(joined+100, record.ClassHTTPError, "replica-2:8080"), ruleNewPod},
		{"a 502 naming the new pod, after the deletion", at(signal+1, record.ClassHTTPError, "replica-2:8080"), ruleNewPod},
		{"a 502 naming the new pod, after SIGKILL", at(kill+1, record.ClassHTTPError, "replica-2:8080"), ruleNewPod},
		{"a 502 naming the old pod, sent while registered", at(sent+1, record.ClassHTTPError, "replica-0:8080"), rulePropagation},
		{"a close at the new pod's joining, before the deletion", at(joined+1, record.ClassReset, ""), ruleProxyReload},
		{"a close before any reload", at(joined-1, record.ClassReset, ""), ruleBeforeDeletion},
		{"another pod's 502 before the deletion", at(joined+100, record.ClassHTTPError, "replica-1:8080"), ruleBeforeDeletion},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := classify(withNewPod(joined), &tt.req); got != tt.want {
				t.Errorf("classify = %d, want %d", got, tt.want)
			}
		})
	}
	m := Compute(withNewPod(joined), []record.Request{at(joined+100, record.ClassHTTPError, "replica-2:8080"), at(sent+1, record.ClassHTTPError, "replica-0:8080")})
	if m.PodFailedNewPod == nil || *m.PodFailedNewPod != 1 || m.PodFailed != 2 {
		t.Errorf("new pod %v, failed %d; want 1, 2 (the new pod's failures are in pod_failed)", m.PodFailedNewPod, m.PodFailed)
	}
	if m.PodNewReadyMs == nil || *m.PodNewReadyMs != 0.0001 || m.PodNewJoinedMs == nil {
		t.Errorf("new pod ready %v ms, joined %v ms", m.PodNewReadyMs, m.PodNewJoinedMs)
	}
	if Compute(meta("caddy", kill, nil), nil).PodFailedNewPod != nil {
		t.Error("pod_failed_new_pod is not null without a new pod")
	}
}

// TestCompute: the counts add up to the failed requests, PodFailed
// leaves out the two classes that are not the termination's, and the
// times are read from the termination's record.
func TestCompute(t *testing.T) {
	dereg := &record.Deregistration{SentNs: sent, AckedNs: acked}
	reqs := []record.Request{
		{Start: 1, End: deleted + 5, Class: record.ClassOK},
		failed(deleted-1, record.ClassHTTPError, false),          // before deletion
		failed(acked, record.ClassEOF, true),                     // proxy reload
		sentEnd(sent, sent+1, record.ClassHTTPError),             // propagation
		sentEnd(acked+1, signal+1, record.ClassHTTPError),        // elsewhere
		failed(kill+1, record.ClassHTTPError, false),             // after kill
		{Start: kill, End: kill + 1, Class: record.ClassNotSent}, // not failed
	}
	m := Compute(meta("caddy", kill, dereg), reqs)
	if m == nil {
		t.Fatal("Compute = nil for a termination run")
	}
	got := [7]int{m.PodFailed, m.PodFailedPropagation, m.PodFailedDrain, m.PodFailedElsewhere, m.PodFailedAfterKill, m.PodFailedBeforeDeletion, m.PodFailedProxyReload}
	if want := [7]int{3, 1, 0, 1, 1, 1, 1}; got != want {
		t.Errorf("failed, propagation, drain, elsewhere, after kill, before deletion, proxy reload = %v, want %v", got, want)
	}
	drop := Compute(meta("", kill, &record.Deregistration{SentNs: sent, AckedNs: signal + 500}), []record.Request{sentEnd(signal-5, signal+5, record.ClassReset)})
	if drop.PodFailedDrain != 1 || drop.PodFailed != 1 {
		t.Errorf("a request in flight at the signal that failed: drain %d, failed %d; want 1, 1", drop.PodFailedDrain, drop.PodFailed)
	}
	if !m.PodKilled {
		t.Error("PodKilled = false with a SIGKILL sent and exit code 137")
	}
	raced := meta("caddy", kill, dereg)
	zero := 0
	raced.Replicas[0].ExitCode = &zero
	if Compute(raced, nil).PodKilled {
		t.Error("PodKilled = true for an app that exited 0 as the SIGKILL went out")
	}
	for name, tt := range map[string]struct {
		got  *float64
		want float64
	}{"hook": {m.PodHookMs, 3000}, "signal to exit": {m.PodSignalToExitMs, 5050}, "deletion to exit": {m.PodDeletionToExitMs, 8050}} {
		if tt.got == nil || *tt.got != tt.want {
			t.Errorf("%s ms = %v, want %v", name, tt.got, tt.want)
		}
	}
	if Compute(record.Meta{Action: &record.Action{Kind: "signal", SentNs: signal}}, reqs) != nil {
		t.Error("Compute != nil for a signal action")
	}
	ebs := meta("caddy", 0, dereg)
	ebs.Action.Termination().ExitedBeforeSignal = true
	if m := Compute(ebs, nil); m.PodSignalToExitMs != nil || m.PodDeletionToExitMs == nil {
		t.Errorf("exited before the signal: signal to exit %v (want null), deletion to exit %v (want a value)", m.PodSignalToExitMs, m.PodDeletionToExitMs)
	}
}

// TestHookFailed: pod_hook_failed is null without a hook, false for a
// hook that ran, true for one the kubelet counts as failed, which a note
// names with how it failed and what the kubelet does then.
func TestHookFailed(t *testing.T) {
	failedExec := &record.HookRun{Kind: "exec", Command: []string{"sleep", "3"}, EndNs: deleted + 80_000_000, Code: 126,
		Output: `OCI runtime exec failed: exec failed: unable to start container process: exec: "sleep": executable file not found in $PATH: unknown`, Error: "exit code 126"}
	for _, tt := range []struct {
		name string
		hook *record.HookRun
		want *bool
		note string
	}{
		{"no hook", nil, nil, ""},
		{"a sleep that ran", &record.HookRun{Kind: "sleep", SleepMs: 3000, EndNs: signal}, new(bool), ""},
		{"an exec the image cannot run", failedExec, func() *bool { b := true; return &b }(),
			`preStop exec ["sleep", "3"] failed (exit 126: command not found in the image; output: "OCI runtime exec failed`},
	} {
		m := meta("caddy", 0, nil)
		m.Action.Termination().Hook = tt.hook
		got := Compute(m, nil).PodHookFailed
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("%s: pod_hook_failed %v, want %v", tt.name, got, tt.want)
		}
		notes := Notes(m)
		if tt.note == "" && len(notes) > 0 || tt.note != "" && (len(notes) != 1 || !strings.HasPrefix(notes[0], tt.note) ||
			!strings.HasSuffix(notes[0], "the kubelet records FailedPreStopHook and sends the stop signal at once")) {
			t.Errorf("%s: notes %q, want %q", tt.name, notes, tt.note)
		}
	}
}
