package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
)

// SummaryDoc is the content of summary.json.
type SummaryDoc struct {
	// Scenario, GeneratedAt and Fingerprint are copied from the Result;
	// Fingerprint is null when no run recorded one (a harness killed
	// before any run finished), never a machine of 0 cores.
	Scenario    string              `json:"scenario"`
	GeneratedAt time.Time           `json:"generated_at"`
	Fingerprint *record.Fingerprint `json:"fingerprint"`
	// Variants in scenario order.
	Variants []VariantSummary `json:"variants"`
}

// VariantSummary is one variant in summary.json: every run's metrics and
// the spread over its valid runs.
type VariantSummary struct {
	// Label and Slug name the variant.
	Label string `json:"label"`
	Slug  string `json:"slug"`
	// ValidRuns and InvalidRuns count the runs that do and do not count
	// (invalid and incomplete runs are both in InvalidRuns).
	ValidRuns   int `json:"valid_runs"`
	InvalidRuns int `json:"invalid_runs"`
	// Runs holds every run, valid or not.
	Runs []RunSummary `json:"runs"`
	// Spread is over the valid runs only, keyed by metric in Rows order.
	Spread SpreadTable `json:"spread"`
}

// RunSummary is one run in summary.json. InvalidReason (JSON "invalid") is
// the reason the run does not count (empty when it does).
type RunSummary struct {
	// Run is the 1-based repetition index.
	Run int `json:"run"`
	// Valid, InvalidReason and Incomplete say whether it counts.
	Valid         bool    `json:"valid"`
	InvalidReason string  `json:"invalid,omitempty"`
	Incomplete    bool    `json:"incomplete"`
	Metrics       Metrics `json:"metrics"`
}

// Summarize builds the summary.json document of a result.
func Summarize(res *Result) SummaryDoc {
	doc := SummaryDoc{Scenario: res.Scenario, GeneratedAt: res.GeneratedAt, Variants: []VariantSummary{}}
	if res.Fingerprint != (record.Fingerprint{}) {
		fp := res.Fingerprint
		doc.Fingerprint = &fp
	}
	rows := res.Rows()
	for i := range res.Variants {
		v := &res.Variants[i]
		vs := VariantSummary{Label: v.Label, Slug: v.Slug, Runs: []RunSummary{}, Spread: v.Spreads(rows)}
		for _, r := range v.Runs {
			if r.Valid {
				vs.ValidRuns++
			} else {
				vs.InvalidRuns++
			}
			vs.Runs = append(vs.Runs, RunSummary{Run: r.Meta.Run, Valid: r.Valid, InvalidReason: r.Reason,
				Incomplete: r.Meta.Incomplete, Metrics: r.Metrics})
		}
		doc.Variants = append(doc.Variants, vs)
	}
	return doc
}

// WriteSummary writes summary.json (indented) to w.
func WriteSummary(w io.Writer, res *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Summarize(res))
}

// Write writes summary.json, report.md, report.csv and spread.csv into dir;
// report.md has the given sections and links the plots already drawn
// (plots, and the sections' own; see WriteMarkdown), and notes the ones
// that could not be. A zero res.GeneratedAt is set to the current UTC time
// first. report/document writes a result's report with every section.
func Write(dir string, res *Result, plots *PlotSet, sections []Section) error {
	if res.GeneratedAt.IsZero() {
		res.GeneratedAt = time.Now().UTC()
	}
	outs := []struct {
		name  string
		write func(io.Writer, *Result) error
	}{
		{resultdir.SummaryFile, WriteSummary},
		{resultdir.MarkdownFile, func(w io.Writer, r *Result) error { return WriteMarkdown(w, r, plots, sections) }},
		{resultdir.CSVFile, WriteCSV},
		{resultdir.SpreadCSVFile, WriteSpreadCSV},
	}
	for _, o := range outs {
		var b bytes.Buffer
		if err := o.write(&b, res); err != nil {
			return fmt.Errorf("%s: %w", o.name, err)
		}
		if err := resultdir.WriteFileAtomic(filepath.Join(dir, o.name), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
