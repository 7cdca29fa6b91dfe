package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// MetricsDocURL is where report.md points readers for metric definitions.
const MetricsDocURL = "https://github.com/shutdownlab/shutdownlab/blob/main/docs/metrics.md"

// PlotSet is what the core plots produced (report/plots draws them), for
// report.md to link: paths are slash-separated and relative to the result
// directory. Each Section keeps the links of its own plots.
type PlotSet struct {
	// Failures is the failures-per-variant plot ("" when not drawn).
	Failures string
	// Latency maps RunPath(variant, run) to that run's latency plot.
	Latency map[string]string
	// Notes say which plots could not be drawn and why: the core plots'
	// first, then each section's, in section order.
	Notes []string
}

// WriteMarkdown writes report.md: the scenario, the machine fingerprint, one
// table with a row per metric and a column per variant (spread over valid
// runs), the failures plot, the given sections in order, the runs that do
// not count with their reasons, run notes, and per variant the phase
// timeline of each run with its latency plot. It links the core plots of
// plots (none when nil) and each section the plots it drew.
// report/document writes it with every capability's section.
func WriteMarkdown(w io.Writer, res *Result, plots *PlotSet, sections []Section) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# shutdownlab report: %s\n\n", MarkdownCell(res.Scenario))
	fmt.Fprintf(&b, "Generated %s.\n\n", res.GeneratedAt.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "**Machine:** %s\n\n", FingerprintLine(res.Fingerprint))
	b.WriteString("How to read: each cell is `min / median / max` over the variant's valid runs " +
		"(the median is one run's value), or one value when they agree; `(k NEVER)` counts runs " +
		"without a value; bools read `k/n true`; latencies are over ok requests only. " +
		"Definitions: [docs/metrics.md](" + MetricsDocURL + ").\n\n")

	b.WriteString("## What the clients saw\n\n")
	WriteMetricTable(&b, res, headlineDefs(res))
	b.WriteString(headlineText(res))

	rows := res.Rows()
	spreads := make([]SpreadTable, len(res.Variants))
	b.WriteString("| metric |")
	for i := range res.Variants {
		spreads[i] = res.Variants[i].Spreads(rows)
		fmt.Fprintf(&b, " %s |", MarkdownCell(res.Variants[i].Label))
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(res.Variants)) + "\n")
	b.WriteString("| valid runs |")
	for i := range res.Variants {
		fmt.Fprintf(&b, " %s |", validRuns(&res.Variants[i]))
	}
	b.WriteString("\n")
	for j, d := range rows {
		fmt.Fprintf(&b, "| %s |", d.Name)
		for i := range res.Variants {
			fmt.Fprintf(&b, " %s |", MarkdownCell(Cell(d, spreads[i][j])))
		}
		b.WriteString("\n")
	}
	if plots != nil && plots.Failures != "" {
		b.WriteString("\n![failures per variant](" + plots.Failures + ")\n")
	}
	for _, s := range sections {
		s.Markdown(&b, res)
	}

	var bad []string
	var notes []string
	for i := range res.Variants {
		v := &res.Variants[i]
		for _, r := range v.Runs {
			if !r.Valid {
				kind := "invalid"
				if r.Meta.Incomplete {
					kind = "incomplete"
				}
				bad = append(bad, fmt.Sprintf("| %s | %d | %s | %s |", MarkdownCell(v.Label), r.Meta.Run, kind, MarkdownCell(r.Reason)))
			}
			for _, n := range r.Metrics.Notes {
				notes = append(notes, fmt.Sprintf("- %s run %d: %s", MarkdownCell(v.Label), r.Meta.Run, n))
			}
			if o := r.Meta.OverlappedWith; len(o) > 0 {
				notes = append(notes, fmt.Sprintf("- %s run %d overlapped with another shutdownlab session (%s): its timings may be disturbed", MarkdownCell(v.Label), r.Meta.Run, MarkdownCell(strings.Join(o, ", "))))
			}
		}
	}
	if len(bad) > 0 {
		b.WriteString("\n## Runs not counted\n\nThese runs are left out of every number above.\n\n")
		b.WriteString("| variant | run | status | reason |\n|---|---|---|---|\n")
		b.WriteString(strings.Join(bad, "\n") + "\n")
	}
	if len(notes) > 0 {
		b.WriteString("\n## Notes\n\n" + strings.Join(notes, "\n") + "\n")
	}
	writeScenario(&b, res)
	writeProxyConfig(&b, res)
	writeTimeline(&b, res, plots)
	_, err := io.WriteString(w, b.String())
	return err
}

// FingerprintLine prints a machine fingerprint on one line; "?" for each
// part it lacks, and "unknown" for an empty one (no run's events.json
// recorded it: a harness killed before any run finished).
func FingerprintLine(f record.Fingerprint) string {
	if f == (record.Fingerprint{}) {
		return "unknown (no run recorded it)"
	}
	or := func(s string) string {
		if s == "" {
			return "?"
		}
		return s
	}
	cores := "? cores"
	if f.Cores > 0 {
		cores = fmt.Sprintf("%d cores", f.Cores)
	}
	return fmt.Sprintf("%s, %s · %s · kernel %s · Docker %s (API %s) · %s",
		or(f.CPU), cores, or(f.OS), or(f.Kernel), or(f.DockerVersion), or(f.DockerAPI), or(f.GoVersion))
}

// WriteMetricTable writes a markdown table of the metrics ds, a row per
// metric and a column per variant (each cell the spread over the
// variant's valid runs, as Cell prints it).
func WriteMetricTable(b *strings.Builder, res *Result, ds []MetricDef) {
	b.WriteString("| metric |")
	for i := range res.Variants {
		fmt.Fprintf(b, " %s |", MarkdownCell(res.Variants[i].Label))
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(res.Variants)) + "\n")
	spreads := make([]SpreadTable, len(res.Variants))
	for i := range res.Variants {
		spreads[i] = res.Variants[i].Spreads(ds)
	}
	for j, d := range ds {
		fmt.Fprintf(b, "| %s |", d.Name)
		for i := range res.Variants {
			fmt.Fprintf(b, " %s |", MarkdownCell(Cell(d, spreads[i][j])))
		}
		b.WriteString("\n")
	}
}

// WriteTerminalTable writes the compact per-variant headline table (variant,
// valid runs and the headline metrics) as aligned plain text, cells
// formatted as in report.md.
func WriteTerminalTable(w io.Writer, res *Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	ds := headlineDefs(res)
	fmt.Fprint(tw, "variant\truns valid")
	for _, d := range ds {
		fmt.Fprint(tw, "\t"+d.Name)
	}
	fmt.Fprintln(tw)
	for i := range res.Variants {
		v := &res.Variants[i]
		fmt.Fprintf(tw, "%s\t%s", v.Label, validRuns(v))
		for j, s := range v.Spreads(ds) {
			fmt.Fprint(tw, "\t"+Cell(ds[j], s))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// validRuns prints "valid/total".
func validRuns(v *Variant) string {
	return fmt.Sprintf("%d/%d", len(v.ValidMetrics()), len(v.Runs))
}

// MarkdownCell returns s made safe inside a markdown table cell: a pipe is
// escaped and a newline becomes a space. Every markdown table shutdownlab
// writes (report.md, REPRODUCTION.md) escapes its cells with it.
func MarkdownCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
