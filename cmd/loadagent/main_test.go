package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// The built agent runs against a local server, gets SIGTERM mid-run, and
// exits 0 with the summary as its last line and the counts adding up.
func TestAgentSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "loadagent")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
	}))
	defer srv.Close()

	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "-target", srv.Listener.Addr().String(), "-clients", "4",
		"-duration", "10s", "-drain", "2s", "-id-prefix", "sig")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("agent exited with %v; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(8 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("agent did not exit after SIGTERM; stderr:\n%s", stderr.String())
	}

	var lines []string
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) < 3 {
		t.Fatalf("only %d stdout lines; stderr:\n%s", len(lines), stderr.String())
	}
	var st record.Start
	if err := json.Unmarshal([]byte(lines[0]), &st); err != nil || st.Type != "start" {
		t.Fatalf("first line %q is not the start line", lines[0])
	}
	var sum record.Summary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.Type != "summary" {
		t.Fatalf("last line %q is not the summary", lines[len(lines)-1])
	}
	total := 0
	for _, n := range sum.ByClass {
		total += n
	}
	if sum.Started != total || sum.Started != len(lines)-2 || sum.StoppedBy != "signal" {
		t.Errorf("summary %+v: want started == sum(by_class) == %d request lines, stopped by signal", sum, len(lines)-2)
	}
	if sum.ByClass[record.ClassOK] != sum.Started || sum.Started < 10 {
		t.Errorf("summary %+v: want only ok requests, at least 10 in 300ms", sum)
	}
	if !strings.Contains(stderr.String(), "stopped by signal") {
		t.Errorf("stderr lacks the human summary:\n%s", stderr.String())
	}
}

// Bad flags and bad environment values exit 2 naming the flag and value.
func TestBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		env  [2]string
		want string
	}{
		{[]string{}, [2]string{}, `-target=""`},
		{[]string{"-target", "nohostport"}, [2]string{}, `-target="nohostport"`},
		{[]string{"-target", "127.0.0.1:1", "-clients", "0"}, [2]string{}, `-clients="0"`},
		{[]string{"-target", "127.0.0.1:1", "-clients", "abc"}, [2]string{}, `"abc" for flag -clients`},
		{[]string{"-target", "127.0.0.1:1", "-shape", "open"}, [2]string{}, `-rate="0"`},
		{[]string{"-target", "127.0.0.1:1", "-mix", "GET / zero"}, [2]string{}, `-mix="GET / zero"`},
		{[]string{"-target", "127.0.0.1:1", "-duration", "-1s"}, [2]string{}, `-duration="-1s"`},
		{[]string{"-target", "127.0.0.1:1"}, [2]string{"LOADAGENT_MAX_REQUESTS", "lots"}, `LOADAGENT_MAX_REQUESTS="lots" (flag -max-requests)`},
		{[]string{"-target", "127.0.0.1:1", "extra"}, [2]string{}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		if tt.env[0] != "" {
			t.Setenv(tt.env[0], tt.env[1])
		}
		var out, errb bytes.Buffer
		code := run(tt.args, &out, &errb, nil)
		if code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and %q", tt.args, code, errb.String(), tt.want)
		}
		if out.Len() != 0 {
			t.Errorf("run(%q) wrote to stdout: %q", tt.args, out.String())
		}
		if tt.env[0] != "" {
			os.Unsetenv(tt.env[0])
		}
	}
}

// Environment fallbacks configure a run; flags win over them.
func TestEnvFallback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	t.Setenv("LOADAGENT_TARGET", srv.Listener.Addr().String())
	t.Setenv("LOADAGENT_MAX_REQUESTS", "1000")
	t.Setenv("LOADAGENT_CLIENTS", "2")
	var out, errb bytes.Buffer
	if code := run([]string{"-max-requests", "7"}, &out, &errb, nil); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var sum record.Summary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(errors.Join(err, errors.New(out.String())))
	}
	if sum.Started != 7 || sum.StoppedBy != "count" {
		t.Errorf("summary %+v, want 7 requests (flag beats env) stopped by count", sum)
	}
}
