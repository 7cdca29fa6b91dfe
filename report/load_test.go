package report

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

func TestReadRecords(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the reader's buffer
	in := `{"type":"start","load_start_ns":1}

{"type":"req","id":"a","class":"ok","start_ns":1,"end_ns":2,"status":200}
{"type":"progress","status":"not a number"}
{"type":"req","id":"b","class":"reset","start_ns":3,"end_ns":4,"error":"` + long + `"}
{"type":"summary","started":2,"by_class":{"ok":1,"reset":1},"stopped_by":"duration"}`
	var got []record.Request
	var sum *record.Summary
	err := ReadRecords(strings.NewReader(in), "records.jsonl", func(r *record.Request) error {
		got = append(got, *r)
		return nil
	}, func(s *record.Summary) { sum = s })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "a" || got[1].ID != "b" || len(got[1].Error) != len(long) {
		t.Errorf("requests = %d (%+v)", len(got), got[0])
	}
	if sum == nil || sum.Started != 2 || sum.ByClass[record.ClassReset] != 1 {
		t.Errorf("summary = %+v", sum)
	}
}

// A line the runner counts as malformed (record.Line.Decode) is an error
// here too: both read the agent's lines with the same decoder.
func TestReadRecordsRejectsWhatTheRunnerRejects(t *testing.T) {
	for _, bad := range []string{
		`null`,
		`[1]`,
		`garbage`,
		`{"type":"req","class":"ok","conn":-1}`,
		`{"type":"summary","started":1,"by_class":{"ok":"1"}}`,
		`{"type":"start","load_start_ns":"x"}`,
	} {
		in := `{"type":"req","class":"ok"}` + "\n" + bad + "\n"
		err := ReadRecords(strings.NewReader(in), "records.jsonl", func(*record.Request) error { return nil }, nil)
		if err == nil || !strings.HasPrefix(err.Error(), "records.jsonl:2: ") {
			t.Errorf("%s: err = %v, want one naming records.jsonl:2", bad, err)
		}
	}
}

func TestReadRecordsErrorNamesLine(t *testing.T) {
	in := "{\"type\":\"req\",\"class\":\"ok\"}\n{\"type\":\"req\",\"start_ns\":\"oops\"}\n"
	err := ReadRecords(strings.NewReader(in), "x/records.jsonl", func(*record.Request) error { return nil }, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "x/records.jsonl:2: ") {
		t.Errorf("err = %v, want one naming x/records.jsonl:2", err)
	}
}

func TestLoadRunGzipAndSummaryFallback(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "events.json"), []byte(`{"scenario":"s","variant":"v","run":1,"valid":true,"replicas":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "records.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(`{"type":"req","class":"ok","start_ns":1,"end_ns":2}` + "\n" + `{"type":"summary","started":1,"by_class":{"ok":1}}` + "\n"))
	zw.Close()
	f.Close()
	meta, reqs, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 || meta.Agent == nil || meta.Agent.Started != 1 {
		t.Errorf("reqs %d agent %+v", len(reqs), meta.Agent)
	}
}

func TestLoadMissingRecordsIsInvalidRun(t *testing.T) {
	dir := t.TempDir()
	rd := filepath.Join(dir, "v", "run-002")
	os.MkdirAll(rd, 0o755)
	os.WriteFile(filepath.Join(rd, "events.json"), []byte(`{"scenario":"s","variant":"v=1","valid":true}`), 0o644)
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Variants[0].Runs[0]
	if r.Valid || !strings.HasPrefix(r.Reason, "missing records.jsonl[.gz]") || r.Meta.Run != 2 || res.Variants[0].Label != "v=1" {
		t.Errorf("run = valid %v reason %q run %d label %q", r.Valid, r.Reason, r.Meta.Run, res.Variants[0].Label)
	}
}

// A malformed events.json skips that run (it does not count) with a note
// naming the file; it does not fail the whole result.
func TestLoadBadEventsNamesFile(t *testing.T) {
	dir := t.TempDir()
	rd := filepath.Join(dir, "v", "run-001")
	os.MkdirAll(rd, 0o755)
	os.WriteFile(filepath.Join(rd, "events.json"), []byte(`{"run":"one"}`), 0o644)
	res, err := Load(dir)
	if err != nil || len(res.Unreadable) != 1 || !strings.Contains(res.Unreadable[0], "events.json") {
		t.Fatalf("err = %v, unreadable %q: want one run skipped naming events.json", err, res.Unreadable)
	}
	if r := res.Variants[0].Runs[0]; r.Valid || !strings.Contains(r.Reason, "events.json") {
		t.Errorf("run = valid %v reason %q", r.Valid, r.Reason)
	}
}

// An invalid run whose records never came into being keeps the runner's
// reason; "missing file" would hide what actually went wrong.
func TestLoadInvalidRunKeepsItsReason(t *testing.T) {
	dir := t.TempDir()
	rd := filepath.Join(dir, "v", "run-001")
	os.MkdirAll(rd, 0o755)
	os.WriteFile(filepath.Join(rd, "events.json"), []byte(`{"scenario":"s","variant":"v=1","valid":false,"invalid":"target never became ready"}`), 0o644)
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Variants[0].Runs[0]; r.Valid || r.Reason != "target never became ready" {
		t.Errorf("run = valid %v reason %q", r.Valid, r.Reason)
	}
}

// The scenario file as run is read back and shown in report.md.
func TestScenarioInReport(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/result")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte("name: fixture-roll\nruns: 3\n"), 0o644)
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, res, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "## Scenario\n") || !strings.Contains(b.String(), "name: fixture-roll\nruns: 3\n```") {
		t.Errorf("report.md lacks the scenario:\n%s", b.String())
	}
}

func TestResultLabels(t *testing.T) {
	res := &Result{Variants: []Variant{{Label: "mode=none"}, {Label: "mode=full"}, {Label: "baseline"}}}
	if got := strings.Join(res.Labels(), " "); got != "mode=none mode=full baseline" {
		t.Errorf("Labels() = %q", got)
	}
	if got := (&Result{}).Labels(); len(got) != 0 {
		t.Errorf("no variants: Labels() = %q", got)
	}
}
