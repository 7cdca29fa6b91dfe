package runner

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

func TestAgentStreamAccounting(t *testing.T) {
	start := `{"type":"start","load_start_ns":1000}` + "\n"
	ok := `{"type":"req","id":"a","class":"ok"}` + "\n"
	reset := `{"type":"req","id":"b","class":"reset"}` + "\n"
	notSent := `{"type":"req","id":"c","class":"not_sent"}` + "\n"
	tests := []struct {
		name    string
		in      string
		wantErr string // "" = accounting holds
		failed  int64
	}{
		// The happy path: 3 records, summary agrees.
		{"adds up", start + ok + reset + notSent + `{"type":"summary","started":3,"by_class":{"ok":1,"reset":1,"not_sent":1}}` + "\n", "", 1},
		// No summary: the agent died or was cut off; cannot vouch for counts.
		{"no summary", start + ok, "no agent summary line", 0},
		// Summary claims more than arrived: a record was lost in transit.
		{"lost record", start + ok + `{"type":"summary","started":2,"by_class":{"ok":2}}` + "\n", "agent started 2, records hold 1", 0},
		// Summary's own classes do not sum to started.
		{"summary inconsistent", start + ok + `{"type":"summary","started":1,"by_class":{"ok":2}}` + "\n", "by_class sums to 2, agent started 1", 0},
		// A garbage line is kept but makes the run unaccountable.
		{"malformed", start + ok + "garbage\n" + `{"type":"summary","started":1,"by_class":{"ok":1}}` + "\n", "1 malformed output lines", 0},
		// A final line without newline is still read.
		{"no trailing newline", start + ok + `{"type":"summary","started":1,"by_class":{"ok":1}}`, "", 0},
		// What the fuzzer found agentStream once accepted (FuzzAgentStream):
		// a line that is JSON but not an object,
		{"null line", start + ok + "null\n" + `{"type":"summary","started":1,"by_class":{"ok":1}}` + "\n", "1 malformed output lines (last: not a JSON object)", 0},
		// a request without a class, and a summary counting it,
		{"no class", start + `{"type":"req","id":"a"}` + "\n" + `{"type":"summary","started":1,"by_class":{"":1}}` + "\n", `1 request records of unknown class ""`, 1},
		// a request of a class the agent never writes (counted as failed),
		{"unknown class", start + `{"type":"req","id":"a","class":"bogus"}` + "\n" + `{"type":"summary","started":1,"by_class":{"bogus":1}}` + "\n", `unknown class "bogus"`, 1},
		// a request line report cannot decode,
		{"undecodable request", start + `{"type":"req","id":"a","class":"ok","conn":-1}` + "\n" + `{"type":"summary","started":1,"by_class":{"ok":1}}` + "\n", "malformed output lines (last: req line:", 0},
		// a summary with a negative count,
		{"negative count", start + ok + reset + `{"type":"summary","started":1,"by_class":{"ok":2,"reset":-1}}` + "\n", "agent by_class counts -1 reset requests", 1},
		// a summary with an unknown class key,
		{"unknown summary class", start + ok + `{"type":"summary","started":2,"by_class":{"ok":1,"later":1}}` + "\n", `agent by_class counts 1 requests of unknown class "later"`, 0},
		// per-class counts that disagree with the records,
		{"classes disagree", start + reset + `{"type":"summary","started":1,"by_class":{"ok":1}}` + "\n", "class ok: agent 1, records 0; class reset: agent 0, records 1", 1},
		// and the minimized input (JSON keys match without regard to case).
		{"minimized fuzz input", `{"tYpe":"req"}` + "\n" + `{"tYpe":"summary","stArted":1,"BY_ClAss":{"":1}}`, `request records of unknown class ""`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newAgentStream()
			var out bytes.Buffer
			if err := s.consume(strings.NewReader(tt.in), &out); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.in {
				t.Errorf("records file differs from agent output:\n got %q\nwant %q", out.String(), tt.in)
			}
			if strings.HasPrefix(tt.in, start) && s.LoadStart() != 1000 {
				t.Errorf("LoadStart = %d, want 1000", s.LoadStart())
			}
			err := s.checkAccounting()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error = %v, want containing %q", err, tt.wantErr)
			}
			if tt.failed > 0 && s.failed.Load() != tt.failed {
				t.Errorf("failed = %d, want %d", s.failed.Load(), tt.failed)
			}
		})
	}
}

func TestAgentStreamProbe(t *testing.T) {
	start := `{"type":"start","load_start_ns":1000}` + "\n"
	probe := `{"type":"probe","kind":"idle","closed":"eof"}` + "\n"
	for _, tt := range []struct{ name, in, wantErr string }{
		{"one probe line", start + probe, ""},
		{"no probe line", start, "no probe line"},
		{"two probe lines", start + probe + probe, "2 probe lines"},
		{"malformed", start + "garbage\n" + probe, "malformed"},
		{"request line", start + probe + `{"type":"req","id":"a","class":"ok"}` + "\n", "1 request records in a probe run"},
	} {
		s := newAgentStream()
		var out bytes.Buffer
		if err := s.consume(strings.NewReader(tt.in), &out); err != nil {
			t.Fatal(err)
		}
		err := s.Account(record.CheckProbeAccounting)
		if (tt.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.wantErr)
		}
		if p, _ := s.Last(record.TypeProbe).(*record.ProbeResult); tt.wantErr == "" && (p == nil || p.Kind != record.ProbeIdle || p.Closed != record.ProbeClosedEOF) {
			t.Errorf("%s: probe line %+v", tt.name, p)
		}
	}
}
