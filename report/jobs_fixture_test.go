package report

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
)

// The synthetic jobs result directory of the jobs golden and plot tests
// lives in testdata/jobsresult; go test -update rewrites it with
// writeJobsFixture. Two replicas work 4 jobs of 6 steps × 2 s inserted at
// load start (two each); replica-0 is stopped (docker stop -t 10) 2 s
// in:
//
//   - mode=close (J1): the stock shutdown waits for its two jobs, SIGKILL
//     cuts them after step 5 with no final log. Run 1 leaves them running
//     (rescue after 1 h); in run 2 (RESCUE_AFTER_MS 1000) replica-1
//     rescues them 30 s later and, the steps not idempotent, applies
//     steps 1-5 again.
//   - mode=full (J2): at WORKER_DEADLINE_MS 5 s the worker cancels both
//     jobs, which stop at the checkpoint after step 4 and are handed back;
//     replica-1 resumes them (idempotent: steps 5 and 6 only) once its
//     own two are done; replica-0 exits 0 by itself, logging it. Beside
//     the jobs, one client sends GET /db?ms=300. Run 2's ledger flags a
//     completed job missing a step.

// jobsFixtureDir is the committed synthetic jobs result directory.
const jobsFixtureDir = "testdata/jobsresult"

// The fixture's moments, in ms after the load start (fixtureBase).
const (
	jobsFixAction = 2000.0
	jobsFixStepMs = 2000.0
	jobsFixSteps  = 6
)

// jobsFixRun is one run of a job: on client from start to end (0: never
// ended), applying steps first..last one step_ms apart from start.
func jobsFixRun(client string, start, end float64, outcome string, first, last int, skipped float64) record.JobRun {
	r := record.JobRun{Client: client, Attempt: 1, StartedNs: at(start), Outcome: outcome}
	if end > 0 {
		r.EndedNs = at(end)
	}
	for s := first; s <= last; s++ {
		r.StepsNs = append(r.StepsNs, record.JobStepTime{Step: s, AppliedNs: at(start + skipped + float64(s-first+1)*jobsFixStepMs)})
	}
	return r
}

// jobsFixEntry is a job of the fixture's shape in class class.
func jobsFixEntry(id int64, class string, idempotent bool, runs ...record.JobRun) record.JobEntry {
	e := record.JobEntry{ID: id, Class: class, State: "completed", Attempt: 1, Steps: jobsFixSteps, StepMS: int(jobsFixStepMs),
		Idempotent: idempotent, InsertedNs: at(0), Runs: runs}
	if class == record.JobRunning {
		e.State = "running"
	}
	for _, r := range runs {
		e.AttemptedBy = append(e.AttemptedBy, r.Client)
	}
	if last := runs[len(runs)-1]; last.Outcome == "completed" {
		e.FinalizedNs = last.EndedNs
	}
	return e
}

// jobsFixLedger totals entries into a ledger.
func jobsFixLedger(rescueAfterMs float64, entries ...record.JobEntry) *record.Jobs {
	j := &record.Jobs{Inserted: len(entries), ByClass: map[string]int{}, RescueAfterMs: rescueAfterMs, Entries: entries}
	for i := range entries {
		e := &entries[i]
		seen := map[int]int{}
		for _, r := range e.Runs {
			for _, s := range r.StepsNs {
				seen[s.Step]++
			}
		}
		for s := 1; s <= e.Steps; s++ {
			if seen[s] > 1 {
				e.Twice = append(e.Twice, s)
				e.Extra += seen[s] - 1
			}
		}
		j.ByClass[e.Class]++
		if len(e.Twice) > 0 {
			j.StepsTwice++
		}
		j.ExtraEffects += e.Extra
	}
	return j
}

// jobsFixMeta is the Meta of one run of variant mode.
func jobsFixMeta(mode string, run int) record.Meta {
	m := fixtureMeta("mode="+mode, run)
	m.Scenario = "fixture-jobs"
	d := float64(run) * 3 // a little jitter between runs
	m.Action = &record.Action{Kind: record.ActionStop, StopTimeoutS: intp(10), AfterMs: jobsFixAction, SentNs: at(jobsFixAction + d)}
	r0, r1 := "replica-0:8080", "replica-1:8080"
	env := func(inst string) map[string]string {
		e := map[string]string{"MODE": mode, "INSTANCE": inst, "WORKER": "on"}
		if mode == "full" {
			e["WORKER_DEADLINE_MS"] = "5000"
		}
		return e
	}
	up := []record.Event{{TimeNs: at(-800), Event: record.EventUp, Mode: mode}, {TimeNs: at(-700), Event: record.EventWorkerUp,
		Msg: "concurrency=2 deadline_ms=5000 rescue_after_ms=3600000 pool_close=last repeat_signal=ignore"}}
	rep0 := record.Replica{Name: "replica-0", Image: "targetapp:go", StopTimeoutS: intp(10), Env: env(r0),
		Events: append(up, record.Event{TimeNs: at(jobsFixAction + d + 1), Event: record.EventSignal, Signal: "SIGTERM"})}
	rep1 := record.Replica{Name: "replica-1", Image: "targetapp:go", StopTimeoutS: intp(10), Env: env(r1), Events: up,
		Exited: true, ExitCode: intp(0), ExitedNs: at(40000)}
	// replica-1's own two jobs, done at 12010.
	own := []record.JobEntry{
		jobsFixEntry(3, record.JobCompletedOnce, mode == "full", jobsFixRun(r1, 10, 12010, "completed", 1, 6, 0)),
		jobsFixEntry(4, record.JobCompletedOnce, mode == "full", jobsFixRun(r1, 10, 12010, "completed", 1, 6, 0)),
	}
	if mode == "close" {
		// Killed by SIGKILL at the end of the grace period, mid step 6.
		kill := jobsFixAction + d + 10000
		rep0.Events = append(rep0.Events, record.Event{TimeNs: at(jobsFixAction + d + 2), Event: record.EventListenerClosed},
			record.Event{TimeNs: at(jobsFixAction + d + 3), Event: record.EventShutdownReturned, Ms: floatp(2)})
		rep0.Exited, rep0.ExitCode, rep0.ExitedNs = true, intp(137), at(kill)
		m.Action.ReturnedNs = at(kill + 5)
		m.Action.Kills = []record.Kill{{TimeNs: at(jobsFixAction + d + 1), Signal: 15}, {TimeNs: at(kill), Signal: 9}}
		cut := func(id int64) record.JobEntry {
			if run == 1 {
				return jobsFixEntry(id, record.JobRunning, false, jobsFixRun(r0, 10, 0, "", 1, 5, 0))
			}
			// Rescued 30 s later: replica-1 applies every step again.
			return jobsFixEntry(id, record.JobCompletedHandover, false, jobsFixRun(r0, 10, 0, "", 1, 5, 0),
				jobsFixRun(r1, kill+30000, kill+30000+12001, "completed", 1, 6, 0))
		}
		rescue := map[int]float64{1: 3600000, 2: 1000}[run]
		m.Jobs = jobsFixLedger(rescue, cut(1), cut(2), own[0], own[1])
	} else {
		// Cancelled at the deadline (+5 s) in step 4: stopped at the
		// checkpoint after it, handed back, resumed by replica-1.
		stop := 10 + 4*jobsFixStepMs + 2
		rep0.Events = append(rep0.Events,
			record.Event{TimeNs: at(jobsFixAction + d + 1), Event: record.EventReadyFalse},
			record.Event{TimeNs: at(jobsFixAction + d + 2), Event: record.EventWorkerStopping, Ms: floatp(1)},
			record.Event{TimeNs: at(jobsFixAction + d + 3), Event: record.EventListenerClosed},
			record.Event{TimeNs: at(stop + 1), Event: record.EventWorkerStopped, Ms: floatp(stop + 1 - jobsFixAction - d), JobsCut: intp(2), JobsRunning: intp(0)},
			record.Event{TimeNs: at(stop + 2), Event: record.EventDrained, Ms: floatp(stop + 2 - jobsFixAction - d)},
			record.Event{TimeNs: at(stop + 3), Event: record.EventPoolClosed, Ms: floatp(stop + 3 - jobsFixAction - d)},
			record.Event{TimeNs: at(stop + 4), Event: record.EventExit, Code: intp(0)})
		rep0.Exited, rep0.ExitCode, rep0.ExitedNs = true, intp(0), at(stop+60)
		m.Action.ReturnedNs = at(stop + 65)
		m.Action.Kills = []record.Kill{{TimeNs: at(jobsFixAction + d + 1), Signal: 15}}
		handed := func(id int64, resume float64) record.JobEntry {
			return jobsFixEntry(id, record.JobCompletedHandover, true,
				jobsFixRun(r0, 10, stop, "stopped before step 5: context canceled", 1, 4, 0),
				jobsFixRun(r1, resume, resume+2*jobsFixStepMs+1, "completed", 5, 6, 0))
		}
		m.Jobs = jobsFixLedger(3600000, handed(1, 12015), handed(2, 12016), own[0], own[1])
		if run == 2 {
			// A lost step: job 4 completed without an effect row for step 3.
			e := &m.Jobs.Entries[3]
			e.Runs[0].StepsNs = append(e.Runs[0].StepsNs[:2:2], e.Runs[0].StepsNs[3:]...)
			e.Missing = []int{3}
			m.Jobs.StepsMissing = 1
			m.Jobs.Problems = []string{"job 4 completed without step 3"}
		}
	}
	m.Replicas = []record.Replica{rep0, rep1}
	m.LoadEndNs = at(50000)
	ids := []int64{1, 2, 3, 4}
	m.JobsLine = &record.JobsLine{Type: record.TypeJobs, IDs: ids, FirstInsertNs: at(1), LastInsertNs: at(2), Settled: run == 2 || mode == "full",
		SettledNs: at(45000)}
	return m
}

// jobsFixDBRequests is the full variant's GET /db?ms=300 client.
func jobsFixDBRequests() []record.Request {
	reqs := closedLoop(1, 300, 4000, okAll)
	for i := range reqs {
		reqs[i].Path = "/db?ms=300"
	}
	return reqs
}

// writeJobsFixture writes the synthetic jobs result directory into dir.
func writeJobsFixture(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	refs := []resultdir.VariantRef{{Label: "mode=close", Slug: "mode-close"}, {Label: "mode=full", Slug: "mode-full"}}
	if err := resultdir.WriteVariants(dir, refs); err != nil {
		return err
	}
	for _, mode := range []string{"close", "full"} {
		for run := 1; run <= 2; run++ {
			fr := fixtureRun{meta: jobsFixMeta(mode, run)}
			rd := resultdir.RunDir(dir, "mode-"+mode, run)
			if err := os.MkdirAll(rd, 0o755); err != nil {
				return err
			}
			var sum *record.Summary
			if mode == "full" {
				fr.reqs = jobsFixDBRequests()
				sum = &record.Summary{Type: record.TypeSummary, Started: len(fr.reqs), ByClass: map[record.Class]int{record.ClassOK: len(fr.reqs)},
					LoadStart: fr.meta.LoadStartNs, LoadEnd: fr.meta.LoadEndNs, StoppedBy: record.StoppedByDuration}
				fr.meta.Agent = sum
			}
			if err := resultdir.WriteJSON(filepath.Join(rd, resultdir.EventsFile), fr.meta); err != nil {
				return err
			}
			if err := writeJobsRecords(rd, fr, sum); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeJobsRecords writes records.jsonl as the job producer does: a start
// line, the /db requests and their summary (when it sent any), the jobs
// line last.
func writeJobsRecords(rd string, fr fixtureRun, sum *record.Summary) error {
	lines := []any{record.Start{Type: record.TypeStart, LoadStart: fr.meta.LoadStartNs}}
	for _, r := range fr.reqs {
		lines = append(lines, r)
	}
	if sum != nil {
		lines = append(lines, sum)
	}
	lines = append(lines, fr.meta.JobsLine)
	return writeJSONLines(filepath.Join(rd, resultdir.RecordsFile), lines)
}

// writeJSONLines writes one JSON object per line into name.
func writeJSONLines(name string, lines []any) (err error) {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	bw := bufio.NewWriter(f)
	enc := json.NewEncoder(bw)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return bw.Flush()
}
