package gate

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/report"
)

// TestCompareRowsFromCatalog: gate compares exactly the metrics whose
// catalog definition says how (report.MetricDef.Compare), by_class rows
// included, in table order.
func TestCompareRowsFromCatalog(t *testing.T) {
	m := met(2, 1, 1000, 300)
	m.ByClass["not_sent"] = 1
	m.ByClass["reset"] = 1
	m.GhostWrites, m.LostWrites, m.Writes = ip(0), ip(0), ip(3)
	res := result(variant("a", valid(m)))
	var got []string
	for _, d := range compareRows(res, res) {
		got = append(got, d.Name)
	}
	var want []string
	for _, d := range report.Rows([]*report.Metrics{&m}) {
		if d.Compare != report.CompareNone {
			want = append(want, d.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("compared %v\nwant    %v", got, want)
	}
	for _, name := range []string{"by_class.http_502", "by_class.reset", "ghost_writes", "exit_code", "p99_ms"} {
		if !slices.Contains(got, name) {
			t.Errorf("%s not compared", name)
		}
	}
	for _, name := range []string{"by_class.ok", "by_class.not_sent", "requests", "writes"} {
		if slices.Contains(got, name) {
			t.Errorf("%s compared", name)
		}
	}
}

// TestCompareDocumented keeps the table of compared metrics in
// docs/expectations.md in step with the catalog: every loss and latency
// metric is named in its row, and every metric named there is compared so.
func TestCompareDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/expectations.md")
	if err != nil {
		t.Skip("docs/expectations.md not found:", err)
	}
	rows := map[report.Comparison]string{}
	for line := range strings.Lines(string(b)) {
		switch {
		case strings.HasPrefix(line, "| losses:"):
			rows[report.CompareLoss] = line
		case strings.HasPrefix(line, "| latencies:"):
			rows[report.CompareLatency] = line
		}
	}
	name := regexp.MustCompile("`([a-z0-9_.]+)`")
	except := regexp.MustCompile(`\(not [^)]*\)`) // "(not `ok`, `not_sent`)"
	for c, row := range rows {
		for _, m := range name.FindAllStringSubmatch(except.ReplaceAllString(row, ""), -1) {
			if d, ok := report.Lookup(m[1]); ok && d.Compare != c {
				t.Errorf("docs/expectations.md lists %s in the %s row, but the catalog compares it as %q", m[1], c, d.Compare)
			}
		}
	}
	for _, d := range report.Defs() {
		row, ok := rows[d.Compare]
		if !ok {
			continue
		}
		if !strings.Contains(row, "`"+d.Name+"`") {
			t.Errorf("docs/expectations.md: the %s row does not name %s", d.Compare, d.Name)
		}
	}
	if len(rows) != 2 {
		t.Errorf("found rows for %v in docs/expectations.md, want losses and latencies", rows)
	}
}
