package runner

import (
	"bytes"
	"strings"
	"testing"
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
		{"no summary", start + ok, "no summary", 0},
		// Summary claims more than arrived: a record was lost in transit.
		{"lost record", start + ok + `{"type":"summary","started":2,"by_class":{"ok":2}}` + "\n", "2 requests started but 1", 0},
		// Summary's own classes do not sum to started.
		{"summary inconsistent", start + ok + `{"type":"summary","started":1,"by_class":{"ok":2}}` + "\n", "sum of classes 2", 0},
		// A garbage line is kept but makes the run unaccountable.
		{"malformed", start + ok + "garbage\n" + `{"type":"summary","started":1,"by_class":{"ok":1}}` + "\n", "malformed", 0},
		// A final line without newline is still read.
		{"no trailing newline", start + ok + `{"type":"summary","started":1,"by_class":{"ok":1}}`, "", 0},
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
			if s.LoadStart() != 1000 {
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
	} {
		s := newAgentStream()
		var out bytes.Buffer
		if err := s.consume(strings.NewReader(tt.in), &out); err != nil {
			t.Fatal(err)
		}
		err := s.checkProbe()
		if (tt.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.wantErr)
		}
		if line, _ := s.Probe(); tt.wantErr == "" && string(line) != strings.TrimSpace(probe) {
			t.Errorf("%s: probe line %q", tt.name, line)
		}
	}
}
