package record

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// HookRun is one pre-stop hook's run: what ran, when the kubelet stopped
// waiting for it, and whether it failed as the kubelet counts a failure.
type HookRun struct {
	// Kind is "sleep", "exec" or "http_get".
	Kind string `json:"kind"`
	// SleepMs is a sleep hook's planned sleep.
	SleepMs float64 `json:"sleep_ms,omitempty"`
	// Command is an exec hook's command; Path and Port an http_get hook's
	// request (Port 0: the target's port).
	Command []string `json:"command,omitempty"`
	Path    string   `json:"path,omitempty"`
	Port    int      `json:"port,omitempty"`
	// EndNs is when the kubelet stopped waiting for it: its end, or the
	// grace period's if it ran longer (TimedOut).
	EndNs    int64 `json:"end_ns"`
	TimedOut bool  `json:"timed_out,omitempty"`
	// Code is an exec hook's exit code or an http_get hook's status.
	Code int `json:"code,omitempty"`
	// Output is an exec hook's stdout then stderr, as the kubelet joins
	// them in its log (the end of it when long: MaxHookOutput).
	Output string `json:"output,omitempty"`
	// Error says why the hook failed as the kubelet counts a failure: an
	// exec that could not run or exited non-zero, an http_get whose
	// request got no answer (the kubelet does not look at the status).
	// The kubelet then records a FailedPreStopHook event and sends the
	// stop signal at once. Empty: it ran to its end, or past the grace
	// period (TimedOut).
	Error string `json:"error,omitempty"`
}

// MaxHookOutput bounds HookRun.Output: its last bytes are kept.
const MaxHookOutput = 2048

// HookOutput is an exec hook's output as HookRun.Output keeps it: stdout
// then stderr, trimmed, its last MaxHookOutput bytes when longer.
func HookOutput(stdout, stderr []byte) string {
	s := strings.TrimSpace(strings.TrimSpace(string(stdout)) + "\n" + strings.TrimSpace(string(stderr)))
	if len(s) > MaxHookOutput {
		s = "[…] " + s[len(s)-MaxHookOutput:]
	}
	return strings.ToValidUTF8(s, "?")
}

// Failed reports whether the hook failed as the kubelet counts a failure
// (a FailedPreStopHook event); false for nil (no hook).
func (h *HookRun) Failed() bool { return h != nil && h.Error != "" }

// Words names the hook as the manifest gives it: `preStop exec ["sleep",
// "3"]`, `preStop httpGet /drain`, `preStop sleep 3s`.
func (h *HookRun) Words() string {
	switch h.Kind {
	case "exec":
		q := make([]string, len(h.Command))
		for i, c := range h.Command {
			q[i] = strconv.Quote(c)
		}
		return "preStop exec [" + strings.Join(q, ", ") + "]"
	case "http_get":
		if h.Port > 0 {
			return fmt.Sprintf("preStop httpGet %s on port %d", h.Path, h.Port)
		}
		return "preStop httpGet " + h.Path
	}
	return "preStop sleep " + time.Duration(h.SleepMs*float64(time.Millisecond)).String()
}

// Failure says how a failed hook failed, in a verdict's words
// (`preStop exec ["sleep", "3"] failed (exit 126: command not found in
// the image; output: "…")`); "" when it did not fail.
func (h *HookRun) Failure() string {
	if !h.Failed() {
		return ""
	}
	why := h.Error
	if h.Kind == "exec" && h.Code != 0 {
		why = fmt.Sprintf("exit %d", h.Code)
		if what := execFailure(h.Code, h.Output); what != "" {
			why += ": " + what
		}
	}
	if last := lastOutputLine(h.Output); last != "" {
		why += "; output: " + strconv.Quote(last)
	}
	return h.Words() + " failed (" + why + ")"
}

// execFailure reads what an exec's exit code and output mean: the
// runtime's "executable file not found" (exit 126 from Docker; 127 from
// a shell that found no such command) is a command the image does not
// have; 126 otherwise is one it could not run. "" for any other code:
// the command's own.
func execFailure(code int, output string) string {
	lower := strings.ToLower(output)
	switch {
	case strings.Contains(lower, "executable file not found"), strings.Contains(lower, "no such file or directory") && code >= 126,
		code == 127:
		return "command not found in the image"
	case code == 126:
		return "command could not be run in the container (not found or not executable)"
	}
	return ""
}

// lastOutputLine is the output's last non-empty line, cut to 200 bytes.
func lastOutputLine(output string) string {
	lines := strings.Split(strings.TrimSpace(output), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 200 {
		last = strings.ToValidUTF8(last[:200], "") + "…"
	}
	return last
}
