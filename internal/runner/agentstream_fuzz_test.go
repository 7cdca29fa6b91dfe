package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// FuzzAgentStream feeds arbitrary load-agent output to agentStream. It
// checks that consume never panics and copies the output verbatim, and that
// checkAccounting never vouches for garbage: when it passes, every line is
// a JSON object, every request line is a record.Request with a known class,
// the summary's started equals both the sum of its (known, non-negative)
// classes and the number of request lines, and each class count matches the
// request lines of that class, all recounted here independently.
func FuzzAgentStream(f *testing.F) {
	recs, _ := filepath.Glob("../../report/testdata/result/*/run-*/records.jsonl")
	for _, name := range recs {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	start := `{"type":"start","load_start_ns":1000}` + "\n"
	req := `{"type":"req","id":"a","method":"GET","path":"/slow","worker":0,"conn":1,"reused":false,"start_ns":1,"end_ns":2,"class":"ok"}` + "\n"
	sum := `{"type":"summary","started":1,"by_class":{"ok":1},"load_start_ns":1,"load_end_ns":2,"stopped_by":"duration"}`
	f.Add([]byte(start + req + sum + "\n"))
	f.Add([]byte(start + req + sum)) // no trailing newline
	f.Add([]byte(start + req + "garbage\n" + sum + "\n"))
	f.Add([]byte(start + `{"type":"probe","kind":"idle"}` + "\n"))
	f.Add([]byte("\r\n\n" + start + req + "  \t\n" + sum + "\r\n"))
	// What the fuzzer once found checkAccounting to accept (kept as seeds;
	// TestAgentStreamAccounting has them as rows).
	f.Add([]byte(`{"tYpe":"req"}` + "\n" + `{"tYpe":"summary","stArted":1,"BY_ClAss":{"":1}}`))
	f.Add([]byte(start + req + "null\n" + sum + "\n"))
	f.Add([]byte(start + `{"type":"req","class":"ok","conn":-1}` + "\n" + sum + "\n"))
	f.Add([]byte(start + req + `{"type":"summary","started":1,"by_class":{"ok":2,"reset":-1}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newAgentStream()
		var out bytes.Buffer
		if err := s.consume(bytes.NewReader(data), &out); err != nil {
			t.Fatalf("consume: %v", err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("records file differs from the agent output:\n got %q\nwant %q", out.Bytes(), data)
		}
		_ = s.Account(record.CheckProbeAccounting)
		if err := s.checkAccounting(); err != nil {
			return
		}
		if why := garbage(data, s.Summary()); why != "" {
			t.Fatalf("checkAccounting passed on garbage: %s\ninput: %q", why, data)
		}
	})
}

// garbage says why the agent output data is not an accountable run whose
// last summary is sum, or "" when it is one.
func garbage(data []byte, sum *record.Summary) string {
	if sum == nil {
		return "no summary"
	}
	reqs := 0
	classes := map[record.Class]int{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' || !json.Valid(line) {
			return "a line is not a JSON object: " + string(line)
		}
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(line, &head) // a valid object: only a type mismatch can fail
		if head.Type != "req" {
			continue
		}
		reqs++
		var r record.Request
		if err := json.Unmarshal(line, &r); err != nil {
			return "a request line is not a record.Request: " + err.Error()
		}
		if !slices.Contains(record.Classes, r.Class) {
			return "a request line has an unknown class " + strconv.Quote(string(r.Class))
		}
		classes[r.Class]++
	}
	total := 0
	for c, n := range sum.ByClass {
		if !slices.Contains(record.Classes, c) || n < 0 {
			return "the summary counts " + string(c) + " (unknown or negative)"
		}
		total += n
	}
	if total != sum.Started || reqs != sum.Started {
		return "counts do not add up"
	}
	for _, c := range record.Classes {
		if classes[c] != sum.ByClass[c] {
			return fmt.Sprintf("the summary counts %d %s, the records %d", sum.ByClass[c], c, classes[c])
		}
	}
	return ""
}
