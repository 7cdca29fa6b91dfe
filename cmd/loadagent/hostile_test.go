package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// -hostile runs loadgen.RunHostile: a start line, one req line per attempt
// with hostile set, a summary that accounts for them; bad hostile settings
// are exit 2 naming the flag, before anything is sent.
func TestHostileFlag(t *testing.T) {
	// The server reads the whole body before it answers: an abort never
	// gets an answer first.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	defer srv.Close()
	target := srv.Listener.Addr().String()
	tests := []struct {
		name     string
		args     []string
		code     int
		attempts int
		class    record.Class
		stderr   string
	}{
		{name: "abort, 3 attempts", args: []string{"-hostile", "abort", "-clients", "1", "-max-requests", "3", "-hostile-body-bytes", "100"},
			attempts: 3, class: record.ClassAborted},
		{name: "slow body answered", args: []string{"-hostile", "slow_body", "-max-requests", "1", "-hostile-body-bytes", "2", "-hostile-bytes-per-s", "1000"},
			attempts: 1, class: record.ClassOK},
		{name: "bad kind", args: []string{"-hostile", "slowloris"}, code: 2, stderr: `invalid -hostile="slowloris"`},
		{name: "abort after the body", args: []string{"-hostile", "abort", "-hostile-body-bytes", "10", "-hostile-abort-after", "10"}, code: 2, stderr: "abort_after=10"},
		{name: "negative rate", args: []string{"-hostile", "abort", "-rate", "-1"}, code: 2, stderr: "invalid -rate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"-target", target, "-duration", "5s", "-id-prefix", "h"}, tt.args...)
			code := run(args, &stdout, &stderr, make(chan os.Signal))
			if code != tt.code || !strings.Contains(stderr.String(), tt.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tt.code, tt.stderr)
			}
			if tt.code != 0 {
				if stdout.Len() != 0 {
					t.Errorf("output for bad flags: %q", stdout.String())
				}
				return
			}
			var tally record.Tally
			var sum *record.Summary
			starts := 0
			var l record.Line
			for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
				if err := l.Decode([]byte(line)); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				switch l.Type {
				case record.TypeStart:
					starts++
				case record.TypeRequest:
					tally.AddRequest(l.Request.Class)
					if l.Request.Hostile != tt.args[1] || l.Request.Class != tt.class {
						t.Errorf("req %+v: want hostile %s, class %s", l.Request, tt.args[1], tt.class)
					}
				case record.TypeSummary:
					s := l.Summary
					sum = &s
				}
			}
			if errs := record.CheckAccounting(sum, &tally); len(errs) > 0 || sum.Started != tt.attempts || starts != 1 {
				t.Errorf("accounting %v, summary %+v, %d start lines; want %d attempts, one start", errs, sum, starts, tt.attempts)
			}
		})
	}
}
