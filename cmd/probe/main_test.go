package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/probe"
	"github.com/shutdownlab/shutdownlab/record"
)

// rawServer answers every connection's request with a keep-alive 200, then
// waits hold (forever when hold < 0, until the test ends) and closes.
func rawServer(t *testing.T, hold time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(done); ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				fmt.Fprint(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")
				if hold < 0 {
					<-done
					return
				}
				select {
				case <-time.After(hold):
				case <-done:
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func buildProbe(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "probe")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// lines parses stdout into a start line and a probe line.
func lines(t *testing.T, out []byte, wantStart bool) (record.Start, probe.Result) {
	t.Helper()
	ls := strings.Split(strings.TrimSpace(string(out)), "\n")
	var st record.Start
	var res probe.Result
	n := 1
	if wantStart {
		n = 2
		if err := json.Unmarshal([]byte(ls[0]), &st); err != nil || st.Type != "start" || st.LoadStart == 0 {
			t.Fatalf("first line %q is not a start line", ls[0])
		}
	}
	if len(ls) != n {
		t.Fatalf("%d stdout lines, want %d:\n%s", len(ls), n, out)
	}
	if err := json.Unmarshal([]byte(ls[n-1]), &res); err != nil || res.Type != "probe" {
		t.Fatalf("last line %q is not a probe line", ls[n-1])
	}
	return st, res
}

// The built binary: an idle probe sees the close, prints start then probe,
// exits 0; an idle probe on a socket that is never closed exits 0 on
// SIGTERM with closed "stopped".
func TestBinary(t *testing.T) {
	bin := buildProbe(t)

	t.Run("closed", func(t *testing.T) {
		addr := rawServer(t, 200*time.Millisecond)
		cmd := exec.Command(bin, "-kind", "idle", "-max-wait", "5s")
		cmd.Env = append(os.Environ(), "PROBE_TARGET="+addr)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("exit %v; stderr:\n%s", err, stderr.String())
		}
		st, res := lines(t, out, true)
		if res.Closed != probe.ClosedEOF || st.LoadStart != res.ResponseEndNs || res.ConnHeader != "keep-alive" {
			t.Errorf("start %d, result %+v: want eof, start = response end", st.LoadStart, res)
		}
		if d := time.Duration(res.SocketClosedNs - res.ResponseEndNs); d < 100*time.Millisecond || d > 3*time.Second {
			t.Errorf("closed %v after the response, want ~200ms", d)
		}
		if !strings.Contains(stderr.String(), "socket: eof") {
			t.Errorf("stderr lacks the human summary:\n%s", stderr.String())
		}
	})

	t.Run("sigterm", func(t *testing.T) {
		addr := rawServer(t, -1)
		cmd := exec.Command(bin, "-kind", "inflight", "-ms", "0", "-target", addr, "-max-wait", "30s")
		var stdout, stderr bytes.Buffer
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
				t.Fatalf("exit %v; stderr:\n%s", err, stderr.String())
			}
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("probe did not exit after SIGTERM; stderr:\n%s", stderr.String())
		}
		st, res := lines(t, stdout.Bytes(), true)
		if res.Closed != probe.ClosedStopped || res.SocketClosedNs != 0 || st.LoadStart != res.WrittenNs || res.Path != "/slow?ms=0" {
			t.Errorf("start %d, result %+v: want stopped, start = written", st.LoadStart, res)
		}
	})

	t.Run("not ready", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		defer srv.Close()
		cmd := exec.Command(bin, "-kind", "idle", "-target", srv.Listener.Addr().String(), "-wait-ready", "/readyz", "-wait-timeout", "200ms")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || len(out) != 0 {
			t.Errorf("exit %v, stdout %q, want 3 and nothing; stderr:\n%s", err, out, stderr.String())
		}
	})
}

// -wait-ready polls are not the probe: the probe's request comes after them.
func TestWaitReadyThenProbe(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.String())
		n := len(paths)
		mu.Unlock()
		if r.URL.Path == "/readyz" && n < 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	srv.Config.IdleTimeout = 100 * time.Millisecond
	srv.Start()
	defer srv.Close()
	var out, errb bytes.Buffer
	code := run([]string{"-kind", "idle", "-target", srv.Listener.Addr().String(), "-wait-ready", "/readyz", "-max-wait", "5s"}, &out, &errb, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	_, res := lines(t, out.Bytes(), true)
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(paths, " ") != "/readyz /readyz /slow?ms=0" || res.Closed != probe.ClosedEOF {
		t.Errorf("requests %q, closed %q; want two readiness polls, then the probe, closed eof", paths, res.Closed)
	}
}

// Bad flags and bad environment values exit 2 naming the flag and value.
func TestBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		env  [2]string
		want string
	}{
		{[]string{"-target", "127.0.0.1:1"}, [2]string{}, `-kind=""`},
		{[]string{"-kind", "busy", "-target", "127.0.0.1:1"}, [2]string{}, `-kind="busy"`},
		{[]string{"-kind", "idle"}, [2]string{}, `-target=""`},
		{[]string{"-kind", "idle", "-target", "nohostport"}, [2]string{}, `-target="nohostport"`},
		{[]string{"-kind", "idle", "-target", "127.0.0.1:1", "-path", "slow"}, [2]string{}, `-path="slow"`},
		{[]string{"-kind", "idle", "-target", "127.0.0.1:1", "-path", "/x", "-ms", "5"}, [2]string{}, `-ms="5"`},
		{[]string{"-kind", "idle", "-target", "127.0.0.1:1", "-ms", "-2"}, [2]string{}, `-ms="-2"`},
		{[]string{"-kind", "idle", "-target", "127.0.0.1:1", "-max-wait", "0s"}, [2]string{}, `-max-wait="0s"`},
		{[]string{"-kind", "idle", "-target", "127.0.0.1:1", "-timeout", "soon"}, [2]string{}, `"soon" for flag -timeout`},
		{[]string{"-kind", "idle", "-target", "127.0.0.1:1", "-wait-ready", "readyz"}, [2]string{}, `-wait-ready="readyz"`},
		{[]string{"-kind", "idle"}, [2]string{"PROBE_MAX_WAIT", "long"}, `PROBE_MAX_WAIT="long" (flag -max-wait)`},
		{[]string{"-kind", "idle", "-target", "127.0.0.1:1", "extra"}, [2]string{}, `unexpected argument "extra"`},
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
