// Package queuejobs is the queue-job load as a capability (load.kind
// jobs): its catalog rows and headline, read from jobsmetrics' analysis of
// the job ledger (capability.go), and the Jobs section of report.md: the
// job ledger's table (min / median / max over valid runs) and whether its
// classes add up, how the acted-on replica ended in each run, the
// shutdown budget before (the audit) and after (what the run did), and
// per variant the timeline of the jobs the acted-on replica ran (jobs.png
// in that run's directory).
//
// Its scenario block, load.jobs (Load, defaults, validation, the work it
// leaves for the shutdown budget audit, the Go-only runtime: load.go),
// is registered with package scenarios by this package's init; its runner
// driver (driver.go: the job producer, a runner.ServiceDriver that starts
// PostgreSQL before the replicas, makes every replica a worker on it,
// stops the replicas after the load and reads the ledger) and that
// database, a runner session service (database.go), are registered with
// the runner by its init. A program gets all three by importing package
// capabilities, the one list.
//
// What stays outside, each for a reason. The record types
// (record/jobs.go: the jobs and jobs_progress lines, the ledger) stay in package record, which every
// package imports; the producer (cmd/jobagent) and the queue (package
// jobs: River's schema, the worker's steps, the ledger's rule) are the
// agent image's and the target's programs, which import none of the
// harness.
package queuejobs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs/jobsmetrics"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// jobsLedgerRows are the rows of the Jobs section's ledger table: the
// jobs inserted, each class, the step flags.
var jobsLedgerRows = []string{"jobs_inserted", "jobs_completed_once", "jobs_completed_handover", "jobs_running",
	"jobs_waiting", "jobs_discarded", "jobs_cancelled", "jobs_not_found", "jobs_steps_twice", "jobs_extra_effects", "jobs_steps_missing"}

// hasJobs reports whether some run of res has a job ledger.
func hasJobs(res *report.Result) bool {
	for i := range res.Variants {
		for j := range res.Variants[i].Runs {
			if jobsmetrics.IsRun(res.Variants[i].Runs[j].Meta) {
				return true
			}
		}
	}
	return false
}

// Section is the Jobs section of a report with a job ledger. The zero
// value is ready to use; use a fresh one per report.
type Section struct {
	// plots are the job timelines drawn, one per variant.
	plots []plotLink
}

// Markdown writes report.md's "Jobs" section when some run has a job
// ledger: the ledger table (min / median / max over valid runs) and
// whether the classes add up, the acted-on replica's end per run, the
// budget before (the audit) and after (what the run did), and the
// per-job timeline plots when drawn.
func (s *Section) Markdown(b *strings.Builder, res *report.Result) {
	if !hasJobs(res) {
		return
	}
	b.WriteString("\n## Jobs\n\n")
	b.WriteString("The job ledger, read from the database after every replica had stopped: every inserted job in " +
		"exactly one class, then the step flags (a step applied twice; a completed job missing a step, which must " +
		"never happen). Cells are `min / median / max` over the valid runs.\n\n")
	var ds []report.MetricDef
	for _, name := range jobsLedgerRows {
		if d, ok := report.Lookup(name); ok {
			ds = append(ds, d)
		}
	}
	report.WriteMetricTable(b, res, ds)
	b.WriteString("\n" + jobsAddUp(res) + "\n")
	writeJobsReplicaTable(b, res)
	writeJobsBudgetTable(b, res)
	for _, p := range s.plots {
		fmt.Fprintf(b, "\n![jobs of the acted-on replica, %s run %d](%s)\n", report.MarkdownCell(p.Label), p.Run, p.Path)
	}
}

// jobsAddUp is the sentence saying whether every ledger's classes add up
// to the jobs it inserted, naming the runs where they do not.
func jobsAddUp(res *report.Result) string {
	var bad []string
	n := 0
	for i := range res.Variants {
		v := &res.Variants[i]
		for j := range v.Runs {
			jobs := v.Runs[j].Meta.Jobs()
			if jobs == nil {
				continue
			}
			n++
			if sum := jobsmetrics.ClassSum(jobs); sum != jobs.Inserted {
				bad = append(bad, fmt.Sprintf("%s run %d (%d of %d)", report.MarkdownCell(v.Label), v.Runs[j].Meta.Run, sum, jobs.Inserted))
			}
		}
	}
	if len(bad) == 0 {
		return fmt.Sprintf("The classes add up to the jobs inserted in every run with a ledger (%d of %d).", n, n)
	}
	return fmt.Sprintf("The classes do **not** add up to the jobs inserted in %d of %d runs: %s.", len(bad), n, strings.Join(bad, ", "))
}

// jobsEnd is how the acted-on replica of a run ended, for the Jobs
// section.
type jobsEnd struct {
	// Code is its exit code ("NEVER", "—" without a replica).
	Code string
	// AfterMs is its exit after the action, "+6012" ("—": unknown).
	AfterMs string
	// ByItself: it logged exit, with the code it exited with; Before:
	// and that exit came before the grace period ended (always, without
	// a grace period).
	ByItself, Before bool
	// Last is its last lifecycle line ("—": none).
	Last string
}

// jobsEndOf reads how the acted-on replica of meta ended. Pure.
func jobsEndOf(meta record.Meta) jobsEnd {
	e := jobsEnd{Code: "—", AfterMs: "—", Last: "—"}
	i := shutdown.ActedReplica(meta)
	if i < 0 {
		return e
	}
	rep := &meta.Replicas[i]
	if len(rep.Events) > 0 {
		e.Last = eventLine(rep.Events[len(rep.Events)-1])
	}
	if !rep.Exited || rep.ExitCode == nil {
		if meta.Action != nil {
			e.Code = "NEVER"
		}
		return e
	}
	e.Code = strconv.Itoa(*rep.ExitCode)
	var after *float64
	if a := meta.Action; a != nil && a.SentNs > 0 && rep.ExitedNs > 0 {
		ms := float64(rep.ExitedNs-a.SentNs) / 1e6
		after = &ms
		e.AfterMs = shutdown.SignedMs(ms)
	}
	if n := len(rep.Events); n > 0 {
		last := rep.Events[n-1]
		e.ByItself = last.Event == record.EventExit && (last.Code == nil || *last.Code == *rep.ExitCode)
	}
	graceMs, from := graceOf(meta)
	e.Before = e.ByItself && (from == "" || (after != nil && *after < float64(graceMs)))
	return e
}

// graceOf is the grace period of meta's action as the budget audit reads
// it (jobsmetrics.BudgetOf): its length in ms and where it comes from
// ("": none, a signal action).
func graceOf(meta record.Meta) (ms int, from string) {
	b := jobsmetrics.BudgetOf(meta, nil)
	return b.GraceMS, b.GraceFrom
}

// eventLine prints a lifecycle event as one line: its name and the
// fields it carries ("exit code=1 jobs_running=2").
func eventLine(e record.Event) string {
	parts := []string{e.Event}
	add := func(k string, p *int) {
		if p != nil {
			parts = append(parts, fmt.Sprintf("%s=%d", k, *p))
		}
	}
	if e.Ms != nil {
		parts = append(parts, "ms="+report.FormatNumber(report.KindMs, *e.Ms))
	}
	add("code", e.Code)
	add("jobs_cut", e.JobsCut)
	add("jobs_running", e.JobsRunning)
	add("inflight", e.Inflight)
	if e.Signal != "" {
		parts = append(parts, "signal="+e.Signal)
	}
	if e.Msg != "" {
		parts = append(parts, strconv.Quote(e.Msg))
	}
	return strings.Join(parts, " ")
}

// yesNo prints a bool for a table.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// writeJobsReplicaTable writes, per run with a ledger, how the acted-on
// replica ended.
func writeJobsReplicaTable(b *strings.Builder, res *report.Result) {
	b.WriteString("\nThe acted-on replica per run: its exit code and exit time (ms after the action was sent), whether it " +
		"exited by itself (its last line is `exit`, with the code it exited with) before the grace period ended, and " +
		"its last lifecycle line.\n\n")
	b.WriteString("| variant | run | counts | exit code | exit ms | by itself before the grace | last line |\n|---|---|---|---|---|---|---|\n")
	for i := range res.Variants {
		v := &res.Variants[i]
		for j := range v.Runs {
			r := &v.Runs[j]
			if !jobsmetrics.IsRun(r.Meta) {
				continue
			}
			e := jobsEndOf(r.Meta)
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | `%s` |\n", report.MarkdownCell(v.Label), r.Meta.Run, yesNo(r.Valid),
				e.Code, e.AfterMs, yesNo(e.Before), report.MarkdownCell(e.Last))
		}
	}
}

// writeJobsBudgetTable writes the budget per variant: the audit of its
// runs' configuration (each distinct text once) and how many valid runs
// exited by themselves before the grace period.
func writeJobsBudgetTable(b *strings.Builder, res *report.Result) {
	b.WriteString("\nThe shutdown budget: before, the audit of the configuration (docs/metrics.md, \"Queue jobs\"); " +
		"after, the valid runs whose acted-on replica exited by itself before the grace period ended.\n\n")
	b.WriteString("| variant | before: the audit | after: exited by itself in time |\n|---|---|---|\n")
	for i := range res.Variants {
		v := &res.Variants[i]
		var audits []string
		kept, n := 0, 0
		for j := range v.Runs {
			r := &v.Runs[j]
			jm := Of(&r.Metrics)
			if jm == nil {
				continue
			}
			if a := jm.BudgetAudit; !slices.Contains(audits, a) {
				audits = append(audits, a)
			}
			if r.Valid {
				n++
				if jobsEndOf(r.Meta).Before {
					kept++
				}
			}
		}
		if len(audits) == 0 {
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %d/%d |\n", report.MarkdownCell(v.Label), report.MarkdownCell(strings.Join(audits, " / ")), kept, n)
	}
}
