package scenarios

import (
	"slices"
	"testing"
)

// TestAgainValidation pins the errors of action.again.
func TestAgainValidation(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"signal again", "name: t\naction: {kind: signal, again: 2s}\n", nil},
		{"stop again", "name: t\naction: {kind: stop, grace_period: 10s, again: 1s}\n", nil},
		{"roll", "name: t\ntopology: caddy\naction:\n  kind: roll\n  again: 1s\n",
			[]string{`t.yaml:5: action.again: "1s": only with action kind signal or stop (kind is roll)`}},
		{"none", "name: t\naction:\n  kind: none\n  again: 1s\n",
			[]string{`t.yaml:4: action.again: "1s": only with action kind signal or stop (kind is none)`}},
		{"after SIGKILL", "name: t\naction:\n  stop_signal: SIGKILL\n  again: 1s\n",
			[]string{`t.yaml:4: action.again: "1s": not after SIGKILL (nothing is left to signal)`}},
		{"zero", "name: t\naction:\n  again: 0s\n", []string{`t.yaml:3: action.again: "0s": must be > 0`}},
		{"past the window", "name: t\naction:\n  again: 10s\nobserve: {window: 10s}\n",
			[]string{`t.yaml:3: action.again: "10s": must be less than observe.window (10s), so the window still watches the replica when it arrives`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errLines(t, tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("errors\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}
