package report

import "strings"

// A Section is one capability's part of a report: the plots it draws into
// the result directory and the report.md section that links them. A fresh
// value is used for each report written (it keeps the links of the plots
// it drew).
//
// report.md places the sections, in the order given, right after the
// table of all metrics and the failures plot; their plots' notes follow
// the core plots' notes under "Plot notes".
type Section interface {
	// Plots draws the section's plots under the result directory dir and
	// returns notes on what could not be drawn.
	Plots(dir string, res *Result) (notes []string)
	// Markdown writes the section into b (nothing when res has none of its
	// runs), linking only the plots Plots drew.
	Markdown(b *strings.Builder, res *Result)
}
