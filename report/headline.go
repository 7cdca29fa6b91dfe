package report

import "slices"

// The headline: the first table of report.md ("What the clients saw") and
// the terminal table. A result whose every run is of one capability that
// has its own headline leads with that capability's metrics (headlines,
// first match); any other result leads with what the HTTP clients saw.

// headline is what the service did to its clients, the metric list of the
// terminal table and of report.md's first table: failures while the
// acted-on replica still ran lead; failures after its exit are details.
var headline = []string{"requests", "failed_while_running", "dropped_inflight", "failed_in_delivery_window", "idle_close_race",
	"served_after_signal", "exit_code", "exit_after_ms", "drain_observed_ms", "drain_ms", "p99_ms"}

// headlineExtra are optional metrics the HTTP headline shows when some
// run has them (a scenario with writes, or a baseline), before the
// capabilities' (Capability.HeadlineExtra).
var headlineExtra = []string{"ghost_writes", "clean_failures", "lost_writes", "unknown_writes", "p99_vs_baseline"}

// httpHeadlineText explains the HTTP headline under its table.
const httpHeadlineText = "\n`failed_while_running` counts failures that started before the acted-on replica exited; " +
	"`dropped_inflight` requests fully written before the action was sent; `failed_in_delivery_window` " +
	"requests written while the signal was on its way (they may be drops too); `idle_close_race` " +
	"requests written onto a keep-alive connection the server was closing. Failures after the exit " +
	"(`failed_after_exit`) and every other metric are in the table below.\n\n## All metrics\n\n"

// headlineOf is the headline of the first capability (in their order)
// that every run of res has (nil: the HTTP headline).
func headlineOf(res *Result) *Headline {
	for _, c := range installed() {
		if c.Headline == nil {
			continue
		}
		n, all := 0, true
		for i := range res.Variants {
			v := &res.Variants[i]
			for j := range v.Runs {
				all = all && c.Has(v, &v.Runs[j])
				n++
			}
		}
		if all && n > 0 {
			return c.Headline
		}
	}
	return nil
}

// headlineFor is the terminal table's metric list for res: its
// capability headline, else headline plus each of headlineExtra that has
// a value in some run.
func headlineFor(res *Result) []string {
	if h := headlineOf(res); h != nil {
		return append([]string(nil), h.Cols...)
	}
	cols := append([]string(nil), headline...)
	var ms []*Metrics
	for i := range res.Variants {
		for j := range res.Variants[i].Runs {
			ms = append(ms, &res.Variants[i].Runs[j].Metrics)
		}
	}
	extra := slices.Clone(headlineExtra)
	for _, c := range installed() {
		extra = append(extra, c.HeadlineExtra...)
	}
	for _, name := range extra {
		for _, d := range catalog() {
			if d.Name == name && anyValue(d, ms) {
				cols = append(cols, name)
			}
		}
	}
	return cols
}

// headlineText is the text under res's headline table.
func headlineText(res *Result) string {
	if h := headlineOf(res); h != nil {
		return h.Text
	}
	return httpHeadlineText
}

// headlineDefs are the definitions of headlineFor(res), in order.
func headlineDefs(res *Result) []MetricDef {
	byName := map[string]MetricDef{}
	for _, d := range catalog() {
		byName[d.Name] = d
	}
	var ds []MetricDef
	for _, h := range headlineFor(res) {
		ds = append(ds, byName[h])
	}
	return ds
}
