package capabilities_test

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce"
)

// TestInstalledInOrder: Install installs the capabilities, in the order
// summary.json and the catalog have them, and their claims, in the order
// of the reproduction's table; again, it is a no-op.
func TestInstalledInOrder(t *testing.T) {
	capabilities.Install()
	capabilities.Install()
	var got []report.Need
	for _, c := range report.Capabilities() {
		got = append(got, c.Name)
	}
	want := []report.Need{"probe", "ws", "cluster", "rollout", "jobs", "pod", "resources"}
	if !slices.Equal(got, want) {
		t.Errorf("installed %v, want %v", got, want)
	}
	if n := len(capabilities.Sections()); n != 4 {
		t.Errorf("%d sections, want 4", n)
	}
	var ids, wantIDs []string
	for _, c := range reproduce.Claims() {
		ids = append(ids, c.ID)
	}
	for _, set := range []struct {
		letter string
		n      int
	}{{"P", 12}, {"W", 6}, {"J", 5}, {"C", 4}} {
		for i := 1; i <= set.n; i++ {
			wantIDs = append(wantIDs, set.letter+strconv.Itoa(i))
		}
	}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("claims %v, want %v", ids, wantIDs)
	}
}

// TestPartsMatchRows: every JSON field of a capability's part is one of
// its rows, every row is a field, and each row reads its own field: a
// part filled with distinct values reads back, row by row, the value of
// the field of the row's name. A field added without a row, or a row
// reading a neighbour's field, fails here for every capability in the
// list, wherever its package lives.
func TestPartsMatchRows(t *testing.T) {
	capabilities.Install()
	for _, c := range report.Capabilities() {
		part := reflect.New(reflect.TypeOf(c.Part).Elem())
		want := fill(t, part.Elem())
		m := &report.Metrics{LifecycleLog: true} // rows read from the app's log are null without it
		m.SetPart(c.Name, part.Interface())
		rows := map[string]bool{}
		for _, d := range c.Rows {
			rows[d.Name] = true
			w, ok := want[d.Name]
			if !ok {
				t.Errorf("%s: row %q is no JSON field of its part %T", c.Name, d.Name, c.Part)
				continue
			}
			if got, _ := m.Value(d.Name); got.Null || got.V != w {
				t.Errorf("%s: row %q reads %+v, want %v", c.Name, d.Name, got, w)
			}
		}
		for name := range want {
			if !rows[name] {
				t.Errorf("%s: field %q of its part has no row", c.Name, name)
			}
		}
		flipBools(t, m, part.Elem(), rows)
		if b, err := json.Marshal(m); err != nil || !strings.Contains(string(b), `"`+c.Rows[0].Name+`":`) {
			t.Errorf("%s: summary.json of a run with the part: %v %s", c.Name, err, b)
		}
	}
}

// flipBools sets each bool field of the part v, a row's, false alone: its
// row reads 0, so a row reading another bool (all true after fill) fails.
func flipBools(t *testing.T, m *report.Metrics, v reflect.Value, rows map[string]bool) {
	t.Helper()
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer && !fv.IsNil() {
			fv = fv.Elem()
		}
		if fv.Kind() != reflect.Bool || !rows[name] {
			continue
		}
		fv.SetBool(false)
		if got, _ := m.Value(name); got.Null || got.V != 0 {
			t.Errorf("row %q with its field alone false reads %+v", name, got)
		}
		fv.SetBool(true)
	}
}

// TestRowsDocumented: docs/metrics.md has a row for every capability's
// metric, as report's own test asks of the core's.
func TestRowsDocumented(t *testing.T) {
	capabilities.Install()
	b, err := os.ReadFile(filepath.Join("..", "docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range report.Capabilities() {
		for _, d := range c.Rows {
			if !strings.Contains(string(b), "| `"+d.Name+"` | "+string(d.Kind)+" |") {
				t.Errorf("docs/metrics.md has no row for %s (kind %s)", d.Name, d.Kind)
			}
		}
	}
}

// fill sets every JSON field of the struct v to a distinct value (bools
// true) and returns the metric value each holds by JSON name; fields of
// other kinds (maps, slices, strings) are no metrics and get no value.
func fill(t *testing.T, v reflect.Value) map[string]float64 {
	t.Helper()
	want := map[string]float64{}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			fv.Set(reflect.New(fv.Type().Elem()))
			fv = fv.Elem()
		}
		switch fv.Kind() {
		case reflect.Bool:
			fv.SetBool(true)
			want[name] = 1
		case reflect.Int:
			fv.SetInt(int64(i + 1))
			want[name] = float64(i + 1)
		case reflect.Float64:
			fv.SetFloat(float64(i) + 1.5)
			want[name] = float64(i) + 1.5
		}
	}
	return want
}

// TestComparisonFitsKind: a loss is a count, a latency a duration in ms,
// codes an exit code; and what gate compares is decided in the catalog
// alone, so the compared set — core rows and every capability's — is
// pinned here, over the installed list.
func TestComparisonFitsKind(t *testing.T) {
	capabilities.Install()
	fits := map[report.Comparison]report.Kind{report.CompareLoss: report.KindCount, report.CompareLatency: report.KindMs, report.CompareCodes: report.KindCode}
	got := map[report.Comparison][]string{}
	for _, d := range report.Defs() {
		if d.Compare == report.CompareNone {
			continue
		}
		if k, ok := fits[d.Compare]; !ok || d.Kind != k {
			t.Errorf("%s: kind %s compared as %q", d.Name, d.Kind, d.Compare)
		}
		got[d.Compare] = append(got[d.Compare], d.Name)
	}
	want := map[report.Comparison][]string{
		report.CompareLoss: {"failed_while_running", "failed", "dropped_inflight", "failed_in_delivery_window", "idle_close_race", "failed_after_signal", "dropped_at_kill", "forks_after_signal", "severed_at_kill", "ghost_writes", "lost_writes",
			"rollout_failed", "rollout_non2xx", "old_tasks_killed", "task_restarts", "pod_failed", "pod_failed_new_pod", "pod_failed_propagation", "pod_failed_drain", "pod_failed_elsewhere", "pod_failed_after_kill"},
		report.CompareLatency: {"exit_after_ms", "drain_ms", "resurrection_ms", "p50_ms", "p99_ms", "max_ms", "rollout_ms", "old_stop_to_exit_ms",
			"pod_hook_ms", "pod_signal_to_exit_ms", "pod_deletion_to_exit_ms", "pod_new_ready_ms", "pod_new_joined_ms"},
		report.CompareCodes: {"exit_code", "old_exit_code"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("compared metrics = %v\nwant %v\n(a change here changes gate NEW --baseline OLD: update docs/expectations.md too)", got, want)
	}
}

// TestReportNamesNoCapability: the report tree (the core, its plots,
// plot kit and proxy section) imports no capability and no capability's
// analysis, so a capability is added without touching it; the list here is
// the only place that knows them, and report/document, which assembles the
// whole document, reads them only through it.
func TestReportNamesNoCapability(t *testing.T) {
	const list = "github.com/shutdownlab/shutdownlab/capabilities"
	files := 0
	err := filepath.WalkDir(filepath.Join("..", "report"), func(f string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			return err
		}
		files++
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		document := filepath.Base(filepath.Dir(f)) == "document"
		for _, imp := range parsed.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if strings.HasPrefix(path, list+"/") || (path == list && !document) {
				t.Errorf("%s imports %s: the report tree names no capability (register it in capabilities/capabilities.go)", f, path)
			}
		}
		return nil
	})
	if err != nil || files < 20 {
		t.Fatalf("report's files: %d read, %v", files, err)
	}
}
