package resultdir

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNewAvoidsCollisions(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	now := time.Date(2026, 11, 30, 7, 5, 9, 0, time.Local)
	var got []string
	for range 3 {
		dir, err := New(root, "deadline", now)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(dir))
	}
	want := []string{"20261130-070509-deadline", "20261130-070509-deadline-2", "20261130-070509-deadline-3"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("dirs %q, want %q", got, want)
	}
}

func TestRunNames(t *testing.T) {
	if got := RunDir("out", "mode-full", 7); got != filepath.Join("out", "mode-full", "run-007") {
		t.Errorf("RunDir = %q", got)
	}
	for _, tt := range []struct {
		name string
		n    int
		ok   bool
	}{
		{"run-001", 1, true},
		{"run-1234", 1234, true},
		{"run-007.bak", 7, true},
		{"run-", 0, false},
		{"runs", 0, false},
		{"latency.png", 0, false},
	} {
		if n, ok := RunNumber(tt.name); n != tt.n || ok != tt.ok {
			t.Errorf("RunNumber(%q) = %d, %v; want %d, %v", tt.name, n, ok, tt.n, tt.ok)
		}
	}
	dir := t.TempDir()
	for _, d := range []string{"v/run-010", "v/run-002", "v/other"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "v", "run-003"), nil, 0o644) // a file, not a run
	runs, err := RunDirs(dir, "v")
	if err != nil || len(runs) != 2 || filepath.Base(runs[0]) != "run-002" || filepath.Base(runs[1]) != "run-010" {
		t.Errorf("RunDirs = %q, %v", runs, err)
	}
}

func TestVariants(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "b", "run-001"), 0o755)
	os.MkdirAll(filepath.Join(dir, "a", "run-001"), 0o755)
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	refs, err := Variants(dir)
	if err != nil || len(refs) != 2 || refs[0].Slug != "a" || refs[1].Slug != "b" {
		t.Fatalf("without %s: %+v, %v", VariantsFile, refs, err)
	}
	want := []VariantRef{{Label: "mode=full", Slug: "b"}, {Label: "mode=close", Slug: "a"}}
	if err := WriteVariants(dir, want); err != nil {
		t.Fatal(err)
	}
	refs, err = Variants(dir)
	if err != nil || len(refs) != 2 || refs[0] != want[0] || refs[1] != want[1] {
		t.Errorf("from %s: %+v, %v", VariantsFile, refs, err)
	}
	for _, bad := range []string{`[{"slug":"../x"}]`, `[{"slug":""}]`, `[{"slug":".."}]`, `{`} {
		os.WriteFile(filepath.Join(dir, VariantsFile), []byte(bad), 0o644)
		if _, err := Variants(dir); err == nil || !strings.Contains(err.Error(), VariantsFile) {
			t.Errorf("%s: err %v, want one naming %s", bad, err, VariantsFile)
		}
	}
	if _, err := Variants(t.TempDir()); err == nil {
		t.Error("an empty directory has variants")
	}
}

// Concurrent writers of one path each write through their own temporary
// file: the result is one writer's content whole, never a mix, and no
// temporary file is left behind.
func TestWriteFileAtomicConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, SummaryFile)
	contents := [][]byte{bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<19)}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- WriteFileAtomic(path, contents[i%2])
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, contents[0]) && !bytes.Equal(got, contents[1]) {
		t.Errorf("content of %d bytes is no writer's whole content", len(got))
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only %s", len(ents), SummaryFile)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

func TestWriteFileAtomicErrorNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", EventsFile)
	err := WriteFileAtomic(path, []byte("{}"))
	if err == nil || err.Error() != "write "+path+": no such file or directory" {
		t.Errorf("err = %v", err)
	}
	// A directory in the way of the rename: the temporary file goes too.
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, EventsFile), 0o755)
	os.WriteFile(filepath.Join(dir, EventsFile, "x"), nil, 0o644)
	if err := WriteJSON(filepath.Join(dir, EventsFile), map[string]int{"a": 1}); err == nil {
		t.Fatal("rename over a non-empty directory succeeded")
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, "*"+tempSuffix)); len(tmp) > 0 {
		t.Errorf("temporary files left: %q", tmp)
	}
}

func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	var v map[string]int
	if err := ReadJSON(filepath.Join(dir, EventsFile), &v); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(dir, EventsFile)
	os.WriteFile(path, []byte("{"), 0o644)
	if err := ReadJSON(path, &v); err == nil || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("bad file: %v", err)
	}
	if err := WriteJSON(path, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if err := ReadJSON(path, &v); err != nil || v["a"] != 1 {
		t.Errorf("round trip: %v, %v", v, err)
	}
}

func TestRecordsCompressAndOpen(t *testing.T) {
	rd := t.TempDir()
	if _, _, err := OpenRecords(rd); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no records: %v", err)
	}
	small := []byte(`{"type":"start"}` + "\n")
	os.WriteFile(filepath.Join(rd, RecordsFile), small, 0o644)
	if err := CompressRecords(rd); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(rd, RecordsGzFile)); err == nil {
		t.Error("a small records file was compressed")
	}
	big := bytes.Repeat([]byte(`{"type":"req","class":"ok"}`+"\n"), CompressAbove/27+10)
	os.WriteFile(filepath.Join(rd, RecordsFile), big, 0o644)
	if err := CompressRecords(rd); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(rd, RecordsFile)); err == nil {
		t.Error("the original is still there")
	}
	r, name, err := OpenRecords(rd)
	if err != nil || filepath.Base(name) != RecordsGzFile {
		t.Fatalf("open: %s, %v", name, err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, big) {
		t.Errorf("read back %d bytes (%v), want %d", len(got), err, len(big))
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
	os.WriteFile(filepath.Join(rd, RecordsGzFile), []byte("not gzip"), 0o644)
	if _, _, err := OpenRecords(rd); err == nil || !strings.Contains(err.Error(), RecordsGzFile) {
		t.Errorf("bad gzip: %v", err)
	}
}

// effective.json round-trips, spec kept raw; a directory without one is
// fs.ErrNotExist (a result of a version before the runner wrote it).
func TestEffective(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadEffective(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadEffective of an empty dir: %v, want fs.ErrNotExist", err)
	}
	want := Effective{Scenario: "s", Sets: []string{"load.clients=5"},
		Variants: []EffectiveVariant{{Label: "mode=full", Spec: json.RawMessage(`{"load":{"clients":5}}`)}}}
	if err := WriteEffective(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadEffective(dir)
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if got.Scenario != "s" || len(got.Sets) != 1 || len(got.Variants) != 1 || got.Variants[0].Label != "mode=full" ||
		json.Unmarshal(got.Variants[0].Spec, &spec) != nil || spec["load"].(map[string]any)["clients"] != 5.0 {
		t.Errorf("ReadEffective = %+v", got)
	}
}
