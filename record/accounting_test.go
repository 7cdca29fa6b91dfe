package record

import (
	"errors"
	"strings"
	"testing"
)

// tallyOf decodes an output stream line by line as the runner does and
// returns its last summary and its tally.
func tallyOf(out string) (*Summary, *Tally) {
	var (
		l   Line
		t   Tally
		sum *Summary
	)
	for _, b := range strings.Split(out, "\n") {
		if err := l.Decode([]byte(b)); err != nil {
			t.AddMalformed(err)
			continue
		}
		switch l.Type {
		case TypeRequest:
			t.AddRequest(l.Request.Class)
		case TypeSummary:
			s := l.Summary
			sum = &s
		case TypeProbe:
			t.Probes++
		}
	}
	return sum, &t
}

func TestCheckAccounting(t *testing.T) {
	const (
		start = `{"type":"start","load_start_ns":1000}` + "\n"
		ok    = `{"type":"req","id":"a","class":"ok"}` + "\n"
		reset = `{"type":"req","id":"b","class":"reset"}` + "\n"
		sum1  = `{"type":"summary","started":1,"by_class":{"ok":1}}` + "\n"
	)
	tests := []struct {
		name string
		out  string
		want []string // one substring per problem, in order; none: it holds
	}{
		{"adds up", start + ok + reset + `{"type":"summary","started":2,"by_class":{"ok":1,"reset":1}}`, nil},
		{"blank lines and unknown types are not counted", "\n  \n" + start + `{"type":"later","x":[1]}` + "\n" + ok + sum1, nil},
		{"no summary", start + ok, []string{"no agent summary"}},
		{"lost record", start + ok + `{"type":"summary","started":2,"by_class":{"ok":2}}`,
			[]string{"agent started 2, records hold 1", "class ok: agent 2, records 1"}},
		{"summary does not add up", start + ok + `{"type":"summary","started":1,"by_class":{"ok":2}}`,
			[]string{"by_class sums to 2, agent started 1", "class ok: agent 2, records 1"}},
		{"garbage line", start + ok + "garbage\n" + sum1, []string{"1 malformed output lines (last: not a JSON object)"}},
		// The fuzzer's finds: each of these once passed the runner's check.
		{"null line", start + ok + "null\n" + sum1, []string{"malformed"}},
		{"array line", start + ok + "[1]\n" + sum1, []string{"malformed"}},
		{"request without a class", start + `{"type":"req","id":"a"}` + "\n" + `{"type":"summary","started":1,"by_class":{"":1}}`,
			[]string{`1 request records of unknown class ""`, `agent by_class counts 1 requests of unknown class ""`}},
		{"request of an unknown class", start + `{"type":"req","class":"bogus"}` + "\n" + `{"type":"summary","started":1,"by_class":{"bogus":1}}`,
			[]string{`unknown class "bogus"`, `unknown class "bogus"`}},
		{"request the report cannot decode", start + `{"type":"req","class":"ok","conn":-1}` + "\n" + sum1,
			[]string{"malformed output lines (last: req line: json: cannot unmarshal number -1", "agent started 1, records hold 0", "class ok: agent 1, records 0"}},
		{"negative summary count", start + ok + reset + `{"type":"summary","started":1,"by_class":{"ok":2,"reset":-1}}`,
			[]string{"agent by_class counts -1 reset requests", "agent started 1, records hold 2", "class ok: agent 2, records 1", "class reset: agent -1, records 1"}},
		{"per-class counts disagree", start + `{"type":"req","class":"reset"}` + "\n" + sum1,
			[]string{"class ok: agent 1, records 0", "class reset: agent 0, records 1"}},
		{"summary that does not decode", start + ok + `{"type":"summary","started":"1"}`,
			[]string{"malformed output lines (last: summary line:", "no agent summary"}},
		{"minimized fuzz input", `{"tYpe":"req"}` + "\n" + `{"tYpe":"summary","stArted":1,"BY_ClAss":{"":1}}`,
			[]string{`request records of unknown class ""`, `agent by_class counts 1 requests of unknown class ""`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := CheckAccounting(tallyOf(tt.out))
			if len(errs) != len(tt.want) {
				t.Fatalf("problems %q, want %d containing %q", errs, len(tt.want), tt.want)
			}
			for i, err := range errs {
				if !strings.Contains(err.Error(), tt.want[i]) {
					t.Errorf("problem %d = %q, want containing %q", i, err, tt.want[i])
				}
			}
		})
	}
}

func TestCheckAccountingNoSummaryIsErrNoSummary(t *testing.T) {
	errs := CheckAccounting(nil, &Tally{})
	if len(errs) != 1 || !errors.Is(errs[0], ErrNoSummary) {
		t.Errorf("problems %q, want ErrNoSummary", errs)
	}
}

func TestCheckProbeAccounting(t *testing.T) {
	const (
		start = `{"type":"start","load_start_ns":1000}` + "\n"
		probe = `{"type":"probe","kind":"idle","closed":"eof"}` + "\n"
	)
	for _, tt := range []struct{ name, out, want string }{
		{"one probe line", start + probe, ""},
		{"no probe line", start, "no probe line"},
		{"two probe lines", start + probe + probe, "2 probe lines, want exactly one"},
		{"malformed", start + "garbage\n" + probe, "malformed"},
		{"probe line that does not decode", start + `{"type":"probe","status":"200"}`, "malformed output lines (last: probe line:"},
		{"request records", start + probe + `{"type":"req","class":"ok"}`, "1 request records in a probe run"},
	} {
		_, tally := tallyOf(tt.out)
		errs := CheckProbeAccounting(tally)
		got := errors.Join(errs...)
		if (tt.want == "") != (got == nil) || got != nil && !strings.Contains(got.Error(), tt.want) {
			t.Errorf("%s: problems %v, want %q", tt.name, got, tt.want)
		}
	}
}
