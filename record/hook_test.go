package record

import (
	"strings"
	"testing"
)

// TestHookFailure: a failed hook is said with what ran, its exit code,
// what the code means and the last line of its output; a hook that ran,
// or ran past the grace period, is no failure.
func TestHookFailure(t *testing.T) {
	const notFound = `OCI runtime exec failed: exec failed: unable to start container process: exec: "sleep": executable file not found in $PATH: unknown`
	sleep3 := []string{"sleep", "3"}
	for _, tt := range []struct {
		name string
		h    *HookRun
		want string
	}{
		{"no hook", nil, ""},
		{"ran", &HookRun{Kind: "exec", Command: sleep3}, ""},
		{"past the grace period", &HookRun{Kind: "exec", Command: sleep3, TimedOut: true}, ""},
		{"Docker: not in the image", &HookRun{Kind: "exec", Command: sleep3, Code: 126, Output: notFound, Error: "exit code 126"},
			`preStop exec ["sleep", "3"] failed (exit 126: command not found in the image; output: "OCI runtime exec failed: exec failed: unable to start container process: exec: \"sleep\": executable file not f`},
		{"a shell without the command", &HookRun{Kind: "exec", Command: []string{"sh", "-c", "sleep 3"}, Code: 127, Output: "sh: sleep: not found", Error: "exit code 127"},
			`preStop exec ["sh", "-c", "sleep 3"] failed (exit 127: command not found in the image; output: "sh: sleep: not found")`},
		{"not executable", &HookRun{Kind: "exec", Command: []string{"/drain.sh"}, Code: 126, Error: "exit code 126"},
			`preStop exec ["/drain.sh"] failed (exit 126: command could not be run in the container (not found or not executable))`},
		{"the command's own exit", &HookRun{Kind: "exec", Command: []string{"/app", "drain"}, Code: 3, Output: "drain: connection refused\n", Error: "exit code 3"},
			`preStop exec ["/app", "drain"] failed (exit 3; output: "drain: connection refused")`},
		{"no answer", &HookRun{Kind: "http_get", Path: "/drain", Port: 9000, Error: "dial tcp 10.0.0.2:9000: connect: connection refused"},
			`preStop httpGet /drain on port 9000 failed (dial tcp 10.0.0.2:9000: connect: connection refused)`},
	} {
		got := tt.h.Failure()
		if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestHookOutput: stdout then stderr, trimmed, its end kept when long.
func TestHookOutput(t *testing.T) {
	if got := HookOutput([]byte("out\r\n"), []byte(" err\n")); got != "out\nerr" {
		t.Errorf("%q", got)
	}
	if got := HookOutput(nil, nil); got != "" {
		t.Errorf("empty: %q", got)
	}
	long := HookOutput([]byte(strings.Repeat("x", 3*MaxHookOutput)+"END"), nil)
	if !strings.HasPrefix(long, "[…] ") || !strings.HasSuffix(long, "END") || len(long) > MaxHookOutput+10 {
		t.Errorf("long output: %d bytes, %.20q…", len(long), long)
	}
}
