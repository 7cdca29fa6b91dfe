package scenarios

import "testing"

func TestSendableSignal(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"SIGQUIT", "SIGQUIT", true}, {"quit", "SIGQUIT", true}, {"3", "SIGQUIT", true},
		{"15", "SIGTERM", true}, {"SIGWINCH", "SIGWINCH", true}, {"28", "SIGWINCH", true}, {"SIGPWR", "SIGPWR", false}, {"37", "37", false},
	}
	for _, tc := range tests {
		if got, ok := SendableSignal(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("SendableSignal(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestSendableSignalNumbers: every signal a scenario may send can be named
// by its number too (a STOPSIGNAL may be numeric), and back.
func TestSendableSignalNumbers(t *testing.T) {
	names := map[string]bool{}
	for _, n := range signalNumbers {
		names[n] = true
	}
	for _, s := range Signals {
		if !names[s] {
			t.Errorf("%s has no number in signalNumbers", s)
		}
	}
	if got, ok := SendableSignal("28"); !ok || got != "SIGWINCH" {
		t.Errorf(`SendableSignal("28") = %q, %v`, got, ok)
	}
}

// TestImageStopSignal: no STOPSIGNAL is SIGTERM; a known one, by name or
// number, is its name; any other is kept as given, marked unknown.
func TestImageStopSignal(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{{"", "SIGTERM", true}, {"SIGQUIT", "SIGQUIT", true}, {"3", "SIGQUIT", true}, {"winch", "SIGWINCH", true}, {"SIGPWR", "SIGPWR", false}, {"37", "37", false}} {
		if got, ok := ImageStopSignal(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("ImageStopSignal(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
