package queuejobs

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs/jobsmetrics"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/plotkit"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// PlotFile is the per-job timeline of one run of each variant with a
// job ledger, in that run's directory.
const PlotFile = "jobs.png"

// maxJobRows bounds the rows of a job timeline: the first jobs (in
// insertion order) the acted-on replica ran.
const maxJobRows = 40

// plotLink is one drawn job timeline, for report.md to link.
type plotLink struct {
	// Label is the variant's label, Run the run's number, Path the plot
	// relative to the result directory.
	Label string
	Run   int
	Path  string
}

// jobsPlotRun is one run of a job on the timeline, times in seconds after
// the origin.
type jobsPlotRun struct {
	// Replica is the index of the replica that ran it (-1: unknown).
	Replica int
	// Start and End bound its bar; Open is true when the run never ended
	// (End is then its replica's exit, or the end of the data).
	Start, End float64
	Open       bool
	// Outcome is the run's own account (record.JobRun.Outcome).
	Outcome string
	// Resumed is true when the run took the job up after a run on
	// another replica.
	Resumed bool
	// Steps are its step applications; Again those of a step already
	// applied by an earlier application (a step applied twice).
	Steps, Again []float64
}

// jobsPlotRow is one job's row.
type jobsPlotRow struct {
	ID   int64
	Runs []jobsPlotRun
}

// jobsPlotData is everything a job timeline shows, before drawing.
type jobsPlotData struct {
	Rows []jobsPlotRow
	// Replicas are the replicas' names, by index; Acted the acted-on one.
	Replicas []string
	Acted    int
	// Markers are vertical lines: the action, the signal, the signal
	// again, the end of the grace period, the acted-on replica's exit.
	Markers []plotkit.Marker
	// Total counts the jobs the acted-on replica ran (Rows holds the
	// first maxJobRows of them).
	Total int
	// Origin says what x = 0 is.
	Origin string
}

// jobsTimeline prepares the job timeline of one run: one row per job the
// acted-on replica ran (insertion order, at most maxRows), every run of
// those jobs on any replica. x is seconds after the action was sent
// (else after the first run's start). Pure.
func jobsTimeline(meta record.Meta, maxRows int) (jobsPlotData, error) {
	d := jobsPlotData{Acted: shutdown.ActedReplica(meta), Origin: "s after t0 (action sent)"}
	if meta.Jobs() == nil {
		return d, fmt.Errorf("no job ledger")
	}
	if d.Acted < 0 {
		return d, fmt.Errorf("no acted-on replica")
	}
	for _, r := range meta.Replicas {
		d.Replicas = append(d.Replicas, r.Name)
	}
	var origin int64
	if meta.Action != nil && meta.Action.SentNs > 0 {
		origin = meta.Action.SentNs
	}
	var mine []record.JobEntry
	for _, e := range meta.Jobs().Entries {
		for k := range e.Runs {
			if jobsmetrics.ClientReplica(meta, e.Runs[k].Client) == d.Acted {
				mine = append(mine, e)
				break
			}
		}
	}
	d.Total = len(mine)
	if len(mine) == 0 {
		return d, fmt.Errorf("the acted-on replica ran no job")
	}
	if origin == 0 {
		origin = mine[0].Runs[0].StartedNs
		for _, e := range mine {
			origin = min(origin, e.Runs[0].StartedNs)
		}
		d.Origin = "s after the first run's start"
	}
	sec := func(ns int64) float64 { return float64(ns-origin) / 1e9 }
	end := dataEnd(meta, mine)
	for _, e := range mine[:min(len(mine), maxRows)] {
		d.Rows = append(d.Rows, jobsRow(meta, e, sec, end))
	}
	d.Markers = jobsMarkers(meta, origin, d.Acted)
	return d, nil
}

// dataEnd is the latest time the run's data knows of: the latest run
// start, end or step of the jobs, a replica's exit, the load's end.
func dataEnd(meta record.Meta, entries []record.JobEntry) int64 {
	end := meta.LoadEndNs
	for _, r := range meta.Replicas {
		end = max(end, r.ExitedNs)
	}
	for _, e := range entries {
		for _, r := range e.Runs {
			end = max(end, r.StartedNs, r.EndedNs)
			for _, s := range r.StepsNs {
				end = max(end, s.AppliedNs)
			}
		}
	}
	return end
}

// jobsRow lays out one job's runs: a run that never ended lasts until its
// replica's exit (or the end of the data).
func jobsRow(meta record.Meta, e record.JobEntry, sec func(int64) float64, end int64) jobsPlotRow {
	row := jobsPlotRow{ID: e.ID}
	applied := map[int]bool{}
	for k := range e.Runs {
		r := &e.Runs[k]
		rep := jobsmetrics.ClientReplica(meta, r.Client)
		pr := jobsPlotRun{Replica: rep, Start: sec(r.StartedNs), Outcome: r.Outcome}
		switch {
		case r.EndedNs != 0:
			pr.End = sec(r.EndedNs)
		case rep >= 0 && meta.Replicas[rep].ExitedNs > r.StartedNs:
			pr.End, pr.Open = sec(meta.Replicas[rep].ExitedNs), true
		default:
			pr.End, pr.Open = sec(max(end, r.StartedNs)), true
		}
		if k > 0 && jobsmetrics.ClientReplica(meta, e.Runs[k-1].Client) != rep {
			pr.Resumed = true
		}
		for _, s := range r.StepsNs {
			if applied[s.Step] {
				pr.Again = append(pr.Again, sec(s.AppliedNs))
			} else {
				pr.Steps = append(pr.Steps, sec(s.AppliedNs))
			}
			applied[s.Step] = true
		}
		row.Runs = append(row.Runs, pr)
	}
	return row
}

// jobsMarkers are the job timeline's vertical lines: the action sent,
// the signal (as the app logged it, when it differs), the signal again,
// the end of a stop's grace period, the acted-on replica's exit.
func jobsMarkers(meta record.Meta, origin int64, acted int) []plotkit.Marker {
	a := meta.Action
	if a == nil || a.SentNs == 0 {
		return nil
	}
	var out []plotkit.Marker
	mk := func(name, label string, at int64) {
		out = append(out, plotkit.Marker{Name: name, X: float64(at-origin) / 1e9,
			Label: fmt.Sprintf("%s %s ms", label, shutdown.SignedMs(float64(at-a.SentNs)/1e6))})
	}
	mk(plotkit.MarkerAction, "t0 action sent", a.SentNs)
	if t, ref := shutdown.SignalTime(meta); t != a.SentNs {
		mk(plotkit.MarkerSignal, "t signal ("+ref+")", t)
	}
	if g := a.Again; g != nil && g.SentNs > 0 {
		mk(jobsMarkAgain, "signal again", g.SentNs)
	}
	if graceMs, from := graceOf(meta); from != "" {
		mk(jobsMarkGrace, "grace ends ("+from+")", a.SentNs+int64(graceMs)*1e6)
	}
	if rep := meta.Replicas[acted]; rep.Exited && rep.ExitedNs > 0 {
		mk(report.PhaseExit, "exit (engine)", rep.ExitedNs)
	}
	return out
}

// The job timeline's own marker names.
const (
	jobsMarkAgain = "again"
	jobsMarkGrace = "grace"
)

// jobsPlotRunOf picks the run of v whose job timeline is drawn: its first
// valid run with a ledger, else its first run with one (nil: none).
func jobsPlotRunOf(v *report.Variant) *report.Run {
	var first *report.Run
	for j := range v.Runs {
		r := &v.Runs[j]
		if !jobsmetrics.IsRun(r.Meta) {
			continue
		}
		if r.Valid {
			return r
		}
		if first == nil {
			first = r
		}
	}
	return first
}

// Plots draws PlotFile into one run directory per variant with a job
// ledger; a plot that cannot be drawn becomes a note.
func (s *Section) Plots(dir string, res *report.Result) []string {
	var notes []string
	for i := range res.Variants {
		v := &res.Variants[i]
		r := jobsPlotRunOf(v)
		if r == nil {
			continue
		}
		rel := path.Join(report.RunPath(v, r), PlotFile)
		d, err := jobsTimeline(r.Meta, maxJobRows)
		var b []byte
		if err == nil {
			b, err = renderJobs(d, fmt.Sprintf("%s · %s · run %d", res.Scenario, v.Label, r.Meta.Run))
		}
		if err == nil {
			err = resultdir.WriteFileAtomic(filepath.Join(dir, filepath.FromSlash(rel)), b)
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s run %d: %s not drawn: %v", v.Label, r.Meta.Run, PlotFile, err))
			continue
		}
		s.plots = append(s.plots, plotLink{Label: v.Label, Run: r.Meta.Run, Path: rel})
	}
	return notes
}

// isStopped reports whether a run's outcome says it stopped at a
// checkpoint and handed the job back ("stopped before step N: ...").
func isStopped(outcome string) bool { return strings.HasPrefix(outcome, "stopped before") }
