package runner

import (
	"reflect"
	"testing"
)

func TestParseLifecycle(t *testing.T) {
	in := []byte(`{"ts_ns":1,"event":"up","mode":"full"}
not json at all
{"ts_ns":2,"event":"signal","signal":"terminated"}
{"event":"no timestamp"}
{"ts_ns":3}
{"ts_ns":4,"event":"drained","ms":12.5}
{broken
`)
	got := parseLifecycle(in)
	var names []string
	for _, e := range got {
		names = append(names, e.Event)
	}
	if want := []string{"up", "signal", "drained"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("events = %v, want %v", names, want)
	}
	if got[2].Ms == nil || *got[2].Ms != 12.5 {
		t.Errorf("drained ms = %v, want 12.5", got[2].Ms)
	}
}

func TestSplitLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},                      // missing/empty file
		{"a\nb\n", []string{"a", "b"}}, // usual trailing newline
		{"step 1/2\n\nCOMMIT", []string{"step 1/2", "COMMIT"}}, // blank line, no final newline
	}
	for _, tt := range tests {
		if got := splitLines([]byte(tt.in)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
