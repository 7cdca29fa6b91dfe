package reproduce

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/report"
)

// File names written in the reproduction directory.
const (
	MarkdownFile = "REPRODUCTION.md"
	CSVFile      = "reproduction.csv"
)

// WriteFiles writes REPRODUCTION.md and reproduction.csv into dir.
func (rep *Report) WriteFiles(dir string) error {
	for name, write := range map[string]func(io.Writer) error{MarkdownFile: rep.WriteMarkdown, CSVFile: rep.WriteCSV} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("reproduce: %w", err)
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("reproduce: write %s: %w", name, err)
		}
	}
	return nil
}

// statusWord is how a status reads in the report.
func statusWord(s Status) string {
	switch s {
	case Reproduced:
		return "✅ reproduced"
	case Differs:
		return "⚠️ differs"
	case NotApplicable:
		return "n/a"
	}
	return "❌ not run"
}

// runtimeName is "node (node v20.20.2)" when the version is known.
func (rep *Report) runtimeName(rt string) string {
	if v := rep.Versions[rt]; v != "" && v != rt {
		return rt + " (" + v + ")"
	}
	return rt
}

// WriteMarkdown writes REPRODUCTION.md: the two machines, a summary table,
// one section per claim (published figure, measured cells per runtime,
// verdict and rule), and the Node-vs-Go table of every scenario.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# shutdownlab reproduction of the published measurements\n\n")
	fmt.Fprintf(&b, "Generated %s; %d runs per variant; runtimes: %s.\n\n", rep.GeneratedAt.UTC().Format(time.RFC3339), rep.Runs,
		strings.Join(mapped(rep.Runtimes, rep.runtimeName), ", "))
	fmt.Fprintf(&b, "**This machine:** %s\n\n", report.FingerprintLine(rep.Fingerprint))
	for _, line := range rep.sourceLines() {
		b.WriteString(line + "\n\n")
	}
	b.WriteString("Rules judge shapes and orders of magnitude (who drops, who exits, roughly when), not the published " +
		"milliseconds. Measured cells are `min / median / max` over the valid runs, as in each scenario's report.md; " +
		"`NEVER k/n` counts runs that did not exit (or close) within the window.\n\n")
	if rep.Failed {
		b.WriteString("**Some scenarios failed or had invalid runs: see the claims marked not run and the scenario reports.**\n\n")
	}

	b.WriteString("## Summary\n\n| claim | published |")
	for _, rt := range rep.Runtimes {
		fmt.Fprintf(&b, " %s |", rt)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(rep.Runtimes)) + "\n")
	for _, cr := range rep.Claims {
		fmt.Fprintf(&b, "| [%s](#%s) | %s |", cr.Claim.ID, strings.ToLower(cr.Claim.ID), report.MarkdownCell(cr.Claim.Published))
		for _, rt := range rep.Runtimes {
			fmt.Fprintf(&b, " %s |", statusWord(cr.Verdicts[rt].Status))
		}
		b.WriteString("\n")
	}

	b.WriteString("\n## Claims\n")
	for _, cr := range rep.Claims {
		c := cr.Claim
		fmt.Fprintf(&b, "\n### %s\n\n", c.ID)
		fmt.Fprintf(&b, "- **Setup:** %s\n", c.Setup)
		fmt.Fprintf(&b, "- **Published:** %s\n", c.Published)
		fmt.Fprintf(&b, "- **Scenario:** `%s`%s, variants %s\n", c.Scenario, rep.scenarioLinks(c.Scenario), strings.Join(c.Variants, ", "))
		fmt.Fprintf(&b, "- **Rule:** %s\n\n", c.Rule)
		b.WriteString("| runtime | verdict | measured | why |\n|---|---|---|---|\n")
		for _, rt := range rep.Runtimes {
			v := cr.Verdicts[rt]
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", rt, statusWord(v.Status), measuredCell(v), report.MarkdownCell(v.Why))
		}
	}

	b.WriteString("\n## Node vs Go, scenario by scenario\n\n" +
		"The headline metrics of every claim the scenario measures, variant by variant.\n")
	for _, sc := range rep.scenarioNames() {
		rep.writeSideBySide(&b, sc)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// scenarioLinks links the scenario's report.md per runtime.
func (rep *Report) scenarioLinks(sc string) string {
	var links []string
	seen := map[string]bool{}
	for _, rt := range rep.Runtimes {
		for _, sr := range rep.Scenarios {
			if sr.Scenario == sc && sr.Runtime == rt && sr.Dir != "" && !seen[sr.Dir] {
				seen[sr.Dir] = true
				links = append(links, fmt.Sprintf("[%s](%s/%s)", rt, sr.Dir, resultdir.MarkdownFile))
			}
		}
	}
	if len(links) == 0 {
		return ""
	}
	return " (reports: " + strings.Join(links, ", ") + ")"
}

// measuredCell renders a verdict's cells one variant per line.
func measuredCell(v Verdict) string {
	if v.Measured == "" {
		return "—"
	}
	return strings.ReplaceAll(report.MarkdownCell(v.Measured), " · ", "<br>")
}

// scenarioNames lists the claims' scenarios in claim order.
func (rep *Report) scenarioNames() []string {
	var out []string
	for _, cr := range rep.Claims {
		if !slices.Contains(out, cr.Claim.Scenario) {
			out = append(out, cr.Claim.Scenario)
		}
	}
	return out
}

// headline returns the union of the metrics of the claims on scenario sc.
func (rep *Report) headline(sc string) []string {
	var out []string
	for _, cr := range rep.Claims {
		if cr.Claim.Scenario != sc {
			continue
		}
		for _, m := range cr.Claim.Metrics {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// sideBySide returns the rows of scenario sc's Node-vs-Go table: variant,
// metric, then one cell per runtime ("—" without a result, "not computed"
// for a metric this build lacks).
func (rep *Report) sideBySide(sc string) [][]string {
	results := make([]*report.Result, len(rep.Runtimes))
	var labels []string
	for i, rt := range rep.Runtimes {
		for _, sr := range rep.Scenarios {
			if sr.Scenario == sc && sr.Runtime == rt && sr.Result != nil {
				results[i] = sr.Result
				for _, v := range sr.Result.Variants {
					if !slices.Contains(labels, v.Label) {
						labels = append(labels, v.Label)
					}
				}
			}
		}
	}
	var rows [][]string
	for _, l := range labels {
		for _, m := range rep.headline(sc) {
			row := []string{l, m}
			for _, res := range results {
				row = append(row, variantCell(res, l, m))
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// variantCell formats metric m of the variant labelled l.
func variantCell(res *report.Result, l, m string) string {
	if res == nil {
		return "—"
	}
	for i := range res.Variants {
		if res.Variants[i].Label == l {
			vals, ok := variantValues(&res.Variants[i], m)
			if !ok {
				return "not computed"
			}
			d := metricDef(m)
			return report.Cell(d, report.SpreadOf(d, vals))
		}
	}
	return "—"
}

func (rep *Report) writeSideBySide(b *strings.Builder, sc string) {
	fmt.Fprintf(b, "\n### %s\n\n", sc)
	rows := rep.sideBySide(sc)
	if len(rows) == 0 {
		b.WriteString("Not run.\n")
		return
	}
	b.WriteString("| variant | metric |")
	for _, rt := range rep.Runtimes {
		fmt.Fprintf(b, " %s |", rt)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(rep.Runtimes)) + "\n")
	for _, row := range rows {
		b.WriteString("|")
		for _, c := range row {
			fmt.Fprintf(b, " %s |", report.MarkdownCell(c))
		}
		b.WriteString("\n")
	}
}

// WriteCSV writes reproduction.csv: one row per claim and runtime (status,
// measured, why, rule, published), then one row per side-by-side cell
// (claim empty, kind "cell").
func (rep *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"kind", "claim", "scenario", "runtime", "status", "variant", "metric", "measured", "why", "rule", "published"})
	for _, cr := range rep.Claims {
		for _, rt := range rep.Runtimes {
			v := cr.Verdicts[rt]
			cw.Write([]string{"claim", cr.Claim.ID, cr.Claim.Scenario, rt, string(v.Status), "", "", v.Measured, v.Why, cr.Claim.Rule, cr.Claim.Published})
		}
	}
	for _, sc := range rep.scenarioNames() {
		for _, row := range rep.sideBySide(sc) {
			for i, rt := range rep.Runtimes {
				cw.Write([]string{"cell", "", sc, rt, "", row[0], row[1], row[2+i], "", "", ""})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func mapped(xs []string, f func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
