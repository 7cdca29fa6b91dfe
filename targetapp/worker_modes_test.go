package targetapp

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/jobs"
	"github.com/shutdownlab/shutdownlab/record"
)

// full, WORKER_DEADLINE_MS=300: both jobs (8 × 250 ms) are cancelled at
// their next checkpoint and handed back (River: available); /db in flight
// still answers 200 (pool closed last); exit 0. A second replica then
// completes them: 2 completed after a hand-over, the non-idempotent one
// with a's steps applied twice.
func testWorkerFull(t *testing.T, ctx context.Context, q *queueDB) {
	a := startWorkerChild(t, q, "replica-a", "MODE=full", "WORKER_DEADLINE_MS=300", "DRAIN_MS=10000")
	evs := a.snapshot()
	if up := one(t, evs, record.EventWorkerUp); !before(evs, record.EventWorkerUp, record.EventUp) ||
		up.Msg != "concurrency=2 deadline_ms=300 rescue_after_ms=3600000 pool_close=last repeat_signal=ignore" {
		t.Errorf("worker_up %+v in %v, want it before up with the configuration", up, names(evs))
	}
	ids := q.insert(t, ctx, jobs.StepArgs{Steps: 8, StepMS: 250, Idempotent: true}, jobs.StepArgs{Steps: 8, StepMS: 250})
	q.waitStarted(t, ctx, "replica-a", ids)
	db := getBody(client(false), a.base+"/db?ms=1000")
	a.waitInflight(t, 1)
	sent := a.signal(t, syscall.SIGTERM)
	st := a.waitExit(t, 5*time.Second)
	t.Logf("measured: full, WORKER_DEADLINE_MS=300, steps of 250 ms: exit %d %v after SIGTERM", st.ExitCode(), time.Since(sent).Round(time.Millisecond))
	if st.ExitCode() != 0 {
		t.Errorf("exit %v, want 0", st)
	}
	if r := <-db; r.err != nil || r.status != 200 {
		t.Errorf("/db in flight at the signal: %d %q %v, want 200 (the pool is closed last)", r.status, r.body, r.err)
	}
	evs = a.snapshot()
	ws := one(t, evs, record.EventWorkerStopped)
	t.Logf("measured: worker_stopped %.1f ms after the signal, jobs_cut %v, jobs_running %v (%s)", *ws.Ms, ptr(ws.JobsCut), ptr(ws.JobsRunning), ws.Msg)
	if ws.JobsCut == nil || *ws.JobsCut != 2 || ws.JobsRunning == nil || *ws.JobsRunning != 0 || *ws.Ms < 300 || *ws.Ms > 1500 {
		t.Errorf("worker_stopped %+v, want jobs_cut 2, jobs_running 0, 300-1500 ms after the signal", ws)
	}
	order := []string{record.EventSignal, record.EventReadyFalse, record.EventWorkerStopping, record.EventWorkerStopped,
		record.EventDrained, record.EventPoolClosed, record.EventExit}
	for i := 1; i < len(order); i++ {
		if !before(evs, order[i-1], order[i]) {
			t.Errorf("events %v: want %s before %s", names(evs), order[i-1], order[i])
		}
	}
	if s := q.states(t, ctx, ids); !slices.Equal(s, []string{"available", "available"}) {
		t.Errorf("River states after the stop %v, want both available (handed back)", s)
	}
	for _, o := range q.runOutcomes(t, ctx, "replica-a") {
		if !strings.HasPrefix(o, "stopped before step ") {
			t.Errorf("replica-a run outcome %q, want stopped before step N", o)
		}
	}

	b := startWorkerChild(t, q, "replica-b", "MODE=full", "DRAIN_MS=10000")
	q.waitInt(t, ctx, "both jobs completed", `SELECT count(*) FROM river_job WHERE state = 'completed' AND id = ANY($1)`,
		func(n int) bool { return n == 2 }, ids)
	checkHandover(t, ctx, q, ids)
	b.signal(t, syscall.SIGTERM)
	if st := b.waitExit(t, 5*time.Second); st.ExitCode() != 0 {
		t.Errorf("replica-b exit %v, want 0", st)
	}
	if ws := one(t, b.snapshot(), record.EventWorkerStopped); ws.JobsCut == nil || *ws.JobsCut != 0 {
		t.Errorf("replica-b worker_stopped %+v, want jobs_cut 0 (idle)", ws)
	}
}

// checkHandover reads the ledger: each job completed by b after a's run
// stopped at a checkpoint.
func checkHandover(t *testing.T, ctx context.Context, q *queueDB, ids []int64) {
	t.Helper()
	l, err := jobs.Account(ctx, q.pool, ids)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ledger: %s", l)
	if l.Count[jobs.CompletedHandover] != 2 || len(l.Problems()) > 0 {
		t.Errorf("ledger %s (problems %v), want 2 completed after a hand-over", l, l.Problems())
	}
	for _, e := range l.Entries {
		if len(e.Runs) != 2 {
			t.Errorf("job %d: runs %+v, want 2", e.ID, e.Runs)
			continue
		}
		ra, rb := e.Runs[0], e.Runs[1]
		t.Logf("measured: job %d (idempotent %v): %q on a, then b %v after a's run ended (b's start included); extra effects %d; attempt %d attempted_by %v",
			e.ID, e.Args.Idempotent, ra.Outcome, rb.Started.Sub(ra.Ended).Round(time.Millisecond), e.Extra, e.Attempt, e.AttemptedBy)
		if ra.ClientID != "replica-a" || rb.ClientID != "replica-b" || rb.Outcome != jobs.OutcomeCompleted {
			t.Errorf("job %d: runs %+v, want a cut, then b completed", e.ID, e.Runs)
		}
		if want := len(ra.Steps); e.Args.Idempotent && e.Extra != 0 || !e.Args.Idempotent && e.Extra != want {
			t.Errorf("job %d (idempotent %v): %d extra effects, want %d", e.ID, e.Args.Idempotent, e.Extra, map[bool]int{true: 0, false: want}[e.Args.Idempotent])
		}
	}
}

// full, WORKER_DEADLINE_MS=0, with replica b already up and idle: a
// cancels both jobs at once (hard stop) and b resumes them; the gap from
// a's run end to b's run start is the hand-over time River gives.
func testWorkerLiveHandover(t *testing.T, ctx context.Context, q *queueDB) {
	a := startWorkerChild(t, q, "replica-a", "MODE=full", "WORKER_DEADLINE_MS=0", "DRAIN_MS=10000")
	ids := q.insert(t, ctx, jobs.StepArgs{Steps: 6, StepMS: 250, Idempotent: true}, jobs.StepArgs{Steps: 6, StepMS: 250})
	q.waitStarted(t, ctx, "replica-a", ids)
	b := startWorkerChild(t, q, "replica-b", "MODE=full", "DRAIN_MS=10000")
	sent := a.signal(t, syscall.SIGTERM)
	if st := a.waitExit(t, 5*time.Second); st.ExitCode() != 0 {
		t.Errorf("exit %v, want 0", st)
	}
	evs := a.snapshot()
	stopping, ws := one(t, evs, record.EventWorkerStopping), one(t, evs, record.EventWorkerStopped)
	t.Logf("measured: WORKER_DEADLINE_MS=0: exit %v after SIGTERM; worker_stopped at %.1f ms, jobs_cut %v", time.Since(sent).Round(time.Millisecond), *ws.Ms, ptr(ws.JobsCut))
	if !strings.HasPrefix(stopping.Msg, "hard stop") || ws.JobsCut == nil || *ws.JobsCut != 2 || *ws.Ms > 1000 {
		t.Errorf("worker_stopping %q, worker_stopped %+v: want a hard stop cutting 2 jobs within one step (250 ms) plus slack", stopping.Msg, ws)
	}
	q.waitInt(t, ctx, "both jobs completed", `SELECT count(*) FROM river_job WHERE state = 'completed' AND id = ANY($1)`,
		func(n int) bool { return n == 2 }, ids)
	l, err := jobs.Account(ctx, q.pool, ids)
	if err != nil {
		t.Fatal(err)
	}
	if l.Count[jobs.CompletedHandover] != 2 || len(l.Problems()) > 0 {
		t.Errorf("ledger %s (problems %v), want 2 completed after a hand-over", l, l.Problems())
	}
	for _, e := range l.Entries {
		if len(e.Runs) != 2 || e.Runs[1].ClientID != "replica-b" {
			t.Errorf("job %d: runs %+v, want a then b", e.ID, e.Runs)
			continue
		}
		gap := e.Runs[1].Started.Sub(e.Runs[0].Ended)
		t.Logf("measured: job %d hand-over: a's run ended %q, b's run started %v later", e.ID, e.Runs[0].Outcome, gap.Round(time.Millisecond))
		if gap < 0 || gap > 3*time.Second {
			t.Errorf("job %d: hand-over gap %v, want 0-3 s with b idle", e.ID, gap)
		}
	}
	b.signal(t, syscall.SIGTERM)
	if st := b.waitExit(t, 5*time.Second); st.ExitCode() != 0 {
		t.Errorf("replica-b exit %v, want 0", st)
	}
}

// close: Shutdown, then River's Stop waits for both running jobs (6 × 250
// ms) however long; they complete; worker_stopped, pool_closed, exit 0.
func testWorkerClose(t *testing.T, ctx context.Context, q *queueDB) {
	a := startWorkerChild(t, q, "replica-a", "MODE=close", "WORKER_DEADLINE_MS=300")
	ids := q.insert(t, ctx, jobs.StepArgs{Steps: 6, StepMS: 250}, jobs.StepArgs{Steps: 6, StepMS: 250, Idempotent: true})
	q.waitStarted(t, ctx, "replica-a", ids)
	sent := a.signal(t, syscall.SIGTERM)
	st := a.waitExit(t, 5*time.Second)
	t.Logf("measured: close: exit %d %v after SIGTERM", st.ExitCode(), time.Since(sent).Round(time.Millisecond))
	if st.ExitCode() != 0 {
		t.Errorf("exit %v, want 0", st)
	}
	evs := a.snapshot()
	ws := one(t, evs, record.EventWorkerStopped)
	t.Logf("measured: worker_stopped %.1f ms after the signal (%s)", *ws.Ms, ws.Msg)
	if ws.JobsCut == nil || *ws.JobsCut != 0 || *ws.JobsRunning != 0 || *ws.Ms < 500 {
		t.Errorf("worker_stopped %+v, want jobs_cut 0 after waiting for the jobs (>= 500 ms, past WORKER_DEADLINE_MS)", ws)
	}
	order := []string{record.EventSignal, record.EventShutdownReturned, record.EventWorkerStopping,
		record.EventWorkerStopped, record.EventPoolClosed, record.EventExit}
	for i := 1; i < len(order); i++ {
		if !before(evs, order[i-1], order[i]) {
			t.Errorf("events %v: want %s before %s", names(evs), order[i-1], order[i])
		}
	}
	if s := q.states(t, ctx, ids); !slices.Equal(s, []string{"completed", "completed"}) {
		t.Errorf("River states %v, want both completed", s)
	}
	if o := q.runOutcomes(t, ctx, "replica-a"); !slices.Equal(o, []string{jobs.OutcomeCompleted, jobs.OutcomeCompleted}) {
		t.Errorf("run outcomes %v, want both completed", o)
	}
}

// POOL_CLOSE=first: the pool is closed at the signal, under a /db request
// in flight (500) and a running job (its next step write fails, so its
// run never records an end and River cannot record its failure either);
// a /db during the pre-stop wait gets 500 too.
func testWorkerPoolFirst(t *testing.T, ctx context.Context, q *queueDB) {
	a := startWorkerChild(t, q, "replica-a", "MODE=full", "POOL_CLOSE=first", "PRESTOP_MS=500", "DRAIN_MS=8000",
		"WORKER_DEADLINE_MS=5000")
	ids := q.insert(t, ctx, jobs.StepArgs{Steps: 20, StepMS: 200})
	q.waitStarted(t, ctx, "replica-a", ids)
	inflight := getBody(client(false), a.base+"/db?ms=2000")
	a.waitInflight(t, 1)
	sent := a.signal(t, syscall.SIGTERM)
	a.waitEvent(t, record.EventPoolClosed, 2*time.Second)
	late := <-getBody(client(false), a.base+"/db?ms=10")
	r := <-inflight
	t.Logf("measured: POOL_CLOSE=first: /db in flight %d %q; /db in the pre-stop %d %q", r.status, r.body, late.status, late.body)
	if r.err != nil || r.status != 500 || late.err != nil || late.status != 500 {
		t.Errorf("/db in flight %d %v, /db in the pre-stop %d %v: want both 500", r.status, r.err, late.status, late.err)
	}
	if slices.Contains(names(a.snapshot()), record.EventListenerClosed) {
		t.Error("the pre-stop /db ran after listener_closed; test inconclusive")
	}
	st := a.waitExit(t, 10*time.Second)
	evs := a.snapshot()
	pc, ws := one(t, evs, record.EventPoolClosed), one(t, evs, record.EventWorkerStopped)
	t.Logf("measured: exit %d %v after SIGTERM; pool_closed at %.1f ms (%s); worker_stopped at %.1f ms jobs_cut %v jobs_running %v (%s)",
		st.ExitCode(), time.Since(sent).Round(time.Millisecond), *pc.Ms, pc.Msg, *ws.Ms, ptr(ws.JobsCut), ptr(ws.JobsRunning), ws.Msg)
	if *pc.Ms > 500 || !before(evs, record.EventPoolClosed, record.EventReadyFalse) && !before(evs, record.EventPoolClosed, record.EventListenerClosed) {
		t.Errorf("pool_closed %+v in %v, want it at the signal", pc, names(evs))
	}
	if !strings.Contains(ws.Msg, "failed=1") {
		t.Errorf("worker_stopped %+v, want the job counted as failed", ws)
	}
	if s := q.states(t, ctx, ids); s[0] == "completed" {
		t.Errorf("River state %v: the job completed despite the closed pool", s)
	}
	var steps int
	if err := q.pool.QueryRow(ctx, `SELECT count(*) FROM shutdownlab_job_effect WHERE job_id = $1`, ids[0]).Scan(&steps); err != nil || steps >= 20 {
		t.Errorf("job applied %d of 20 steps (%v), want it cut", steps, err)
	}
	t.Logf("measured: POOL_CLOSE=first: the job applied %d of 20 steps; River state %v; run outcomes %v", steps, q.states(t, ctx, ids), q.runOutcomes(t, ctx, "replica-a"))
	t.Logf("River's warnings on stderr:\n%s", a.stderr.String())
}

// DRAIN_MS=800 shorter than the jobs and WORKER_DEADLINE_MS=5000: the
// drain deadline comes first; worker_stopped says 2 jobs still running,
// exit 1 with jobs_running 2; River still says running (stuck until the
// rescuer).
func testWorkerDeadline(t *testing.T, ctx context.Context, q *queueDB) {
	a := startWorkerChild(t, q, "replica-a", "MODE=full", "DRAIN_MS=800", "WORKER_DEADLINE_MS=5000", "RESCUE_AFTER_MS=600000")
	ids := q.insert(t, ctx, jobs.StepArgs{Steps: 20, StepMS: 200}, jobs.StepArgs{Steps: 20, StepMS: 200})
	q.waitStarted(t, ctx, "replica-a", ids)
	sent := a.signal(t, syscall.SIGTERM)
	st := a.waitExit(t, 5*time.Second)
	el := time.Since(sent)
	t.Logf("measured: DRAIN_MS=800 < WORKER_DEADLINE_MS=5000: exit %d %v after SIGTERM", st.ExitCode(), el.Round(time.Millisecond))
	if st.ExitCode() != 1 || el < 750*time.Millisecond || el > 3*time.Second {
		t.Errorf("exit %v %v after the signal, want 1 just after DRAIN_MS", st, el)
	}
	evs := a.snapshot()
	ws, ex := one(t, evs, record.EventWorkerStopped), one(t, evs, record.EventExit)
	if ws.JobsRunning == nil || *ws.JobsRunning != 2 || *ws.JobsCut != 0 || !strings.HasPrefix(ws.Msg, "gave up at the drain deadline") {
		t.Errorf("worker_stopped %+v, want jobs_running 2, jobs_cut 0, gave up", ws)
	}
	if ex.JobsRunning == nil || *ex.JobsRunning != 2 || !before(evs, record.EventDeadline, record.EventWorkerStopped) ||
		slices.Contains(names(evs), record.EventPoolClosed) {
		t.Errorf("events %v, exit %+v: want deadline, worker_stopped, exit with jobs_running 2, no pool_closed", names(evs), ex)
	}
	if s := q.states(t, ctx, ids); !slices.Equal(s, []string{"running", "running"}) {
		t.Errorf("River states %v, want both running (abandoned)", s)
	}
}

// none: no handler; SIGTERM kills the process mid-job, the job stays
// running in River.
func testWorkerNone(t *testing.T, ctx context.Context, q *queueDB) {
	a := startWorkerChild(t, q, "replica-a", "MODE=none")
	ids := q.insert(t, ctx, jobs.StepArgs{Steps: 20, StepMS: 200})
	q.waitStarted(t, ctx, "replica-a", ids)
	a.signal(t, syscall.SIGTERM)
	st := a.waitExit(t, 3*time.Second)
	if ws, ok := st.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("process state %v, want terminated by SIGTERM", st)
	}
	if n := names(a.snapshot()); !slices.Equal(n, []string{record.EventWorkerUp, record.EventUp}) {
		t.Errorf("events %v, want worker_up and up only", n)
	}
	if s := q.states(t, ctx, ids); !slices.Equal(s, []string{"running"}) {
		t.Errorf("River state %v, want running (cut mid-job)", s)
	}
	if o := q.runOutcomes(t, ctx, "replica-a"); !slices.Equal(o, []string{"<null>"}) {
		t.Errorf("run outcomes %v, want one run without an end", o)
	}
}
