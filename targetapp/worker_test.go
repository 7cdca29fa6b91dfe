package targetapp

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// The drain deadline ends d after its start, and restart re-arms it from
// now; once passed it stays passed.
func TestDrainDeadlineRestart(t *testing.T) {
	t0 := time.Now()
	ctx, dd, cancel := newDrainDeadline(t0, 200*time.Millisecond)
	defer cancel()
	time.Sleep(150 * time.Millisecond)
	if !dd.restart() {
		t.Fatal("restart before the deadline reported false")
	}
	<-ctx.Done()
	if el := time.Since(t0); el < 330*time.Millisecond || el > 1500*time.Millisecond {
		t.Errorf("deadline ended %v after the start, want about 150+200 ms", el)
	}
	if dd.restart() {
		t.Error("restart after the deadline passed reported true")
	}

	ctx, dd, cancel = newDrainDeadline(time.Now(), 0)
	defer cancel()
	if dd.restart() {
		t.Error("restart without DRAIN_MS reported true")
	}
	select {
	case <-ctx.Done():
		t.Error("DRAIN_MS=0 context ended by itself")
	case <-time.After(50 * time.Millisecond):
	}
}

// laterSignals: ignored by default, restarted with REPEAT_SIGNAL=restart in
// full mode, and still ignored in close mode.
func TestLaterSignals(t *testing.T) {
	tests := []struct {
		name   string
		mode   Mode
		repeat RepeatSignal
		drain  time.Duration
		want   string
	}{
		{"full ignore", ModeFull, RepeatIgnore, time.Second, "ignored: already draining"},
		{"full restart", ModeFull, RepeatRestart, time.Second, "restarted: drain deadline DRAIN_MS=1000 from this signal"},
		{"full restart without deadline", ModeFull, RepeatRestart, 0, "ignored: already draining"},
		{"close restart", ModeClose, RepeatRestart, time.Second, "ignored: already shutting down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Mode, cfg.Drain, cfg.Worker.RepeatSignal = tt.mode, tt.drain, tt.repeat
			out := &syncBuffer{}
			_, dd, cancel := newDrainDeadline(time.Now(), tt.drain)
			defer cancel()
			sigs, stop := make(chan os.Signal, 1), make(chan struct{})
			done := make(chan struct{})
			go func() { laterSignals(NewLogger(out, nil), cfg, sigs, dd, stop); close(done) }()
			sigs <- syscall.SIGTERM
			eventually(t, 2*time.Second, "the signal event", func() bool { return strings.Contains(out.String(), "signal") })
			close(stop)
			<-done
			evs := out.events(t)
			if len(evs) != 1 || evs[0].Event != record.EventSignal || evs[0].Signal != "SIGTERM" || evs[0].Msg != tt.want {
				t.Errorf("events %+v, want one SIGTERM with msg %q", evs, tt.want)
			}
		})
	}
}

// Without WORKER=on, /db answers 404 with a message and nothing else changes.
func TestDBWithoutWorker(t *testing.T) {
	a, _ := newTestApp(t, testConfig(t))
	base := "http://" + serve(t, a)
	resp, err := client(false).Get(base + "/db?ms=10")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Error string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body.Error, "WORKER=on") {
		t.Errorf("GET /db = %d %q, want 404 naming WORKER=on", resp.StatusCode, body.Error)
	}
	if err := a.StartWorker(context.Background()); err != nil || a.worker != nil {
		t.Errorf("StartWorker with WORKER=off: %v, worker %v; want a no-op", err, a.worker)
	}
}

// The worker's start is bounded by its context: a server that accepts and
// never answers makes StartWorker fail in time, naming the host and not
// the password.
func TestStartWorkerBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // silent until the test ends
		}
	}()
	cfg := testConfig(t)
	cfg.Worker.On = true
	cfg.Worker.DatabaseURL = "postgres://app:hunter2@" + ln.Addr().String() + "/x?sslmode=disable"
	a, out := newTestApp(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	err = a.StartWorker(ctx)
	if el := time.Since(t0); el > 3*time.Second {
		t.Errorf("StartWorker returned %v after the start, want about its 300 ms bound", el)
	}
	if err == nil {
		t.Fatal("StartWorker succeeded against a silent server")
	}
	if msg := err.Error(); !strings.Contains(msg, "DATABASE_URL host "+ln.Addr().String()) || strings.Contains(msg, "hunter2") {
		t.Errorf("error %q: want DATABASE_URL's host named and no password", msg)
	}
	if a.worker != nil || out.String() != "" {
		t.Errorf("failed start left worker %v, log %q", a.worker, out.String())
	}
}

// WORKER=on with an unreachable database: exit 2 before "up", stderr names
// DATABASE_URL's host, never its password; WORKER=on without DATABASE_URL
// is a configuration error.
func TestProcessWorkerStartFails(t *testing.T) {
	t.Parallel()
	if targetBin == "" {
		t.Skip("needs the binary")
	}
	tests := []struct {
		name, url string
		want      []string
	}{
		{"refused", "postgres://app:hunter2@127.0.0.1:1/x?sslmode=disable", []string{"DATABASE_URL host 127.0.0.1:1", "connect"}},
		{"missing", "", []string{"DATABASE_URL", "required with WORKER=on"}},
	}
	for _, tt := range tests {
		cmd := exec.Command(targetBin)
		cmd.Env = append(os.Environ(), "LISTEN_HOST=127.0.0.1", "PORT=0", "DATA_DIR="+t.TempDir(),
			"WORKER=on", "DATABASE_URL="+tt.url)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		t0 := time.Now()
		err := cmd.Run()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != ExitStartup {
			t.Errorf("%s: exit %v (%v), want %d", tt.name, cmd.ProcessState, err, ExitStartup)
		}
		if el := time.Since(t0); el > 10*time.Second {
			t.Errorf("%s: took %v", tt.name, el)
		}
		for _, s := range tt.want {
			if !strings.Contains(stderr.String(), s) {
				t.Errorf("%s: stderr %q does not contain %q", tt.name, stderr.String(), s)
			}
		}
		if strings.Contains(stderr.String(), "hunter2") || stdout.Len() != 0 {
			t.Errorf("%s: stderr %q quotes the password or stdout %q is not empty", tt.name, stderr.String(), stdout.String())
		}
	}
}

// REPEAT_SIGNAL (WORKER=off): a second SIGTERM 400 ms into a DRAIN_MS=800
// drain re-arms the deadline with restart (exit at about 1200 ms) and is
// ignored by default (exit at about 800 ms).
func TestProcessRepeatSignal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		repeat   string
		min, max time.Duration
		msg      string
	}{
		{"ignore", 750 * time.Millisecond, 1100 * time.Millisecond, "ignored: already draining"},
		{"restart", 1150 * time.Millisecond, 1700 * time.Millisecond, "restarted: drain deadline DRAIN_MS=800 from this signal"},
	} {
		t.Run(tt.repeat, func(t *testing.T) {
			t.Parallel()
			c := startChild(t, "MODE=full", "DRAIN_MS=800", "REPEAT_SIGNAL="+tt.repeat)
			res := getAsync(client(true), c.base+"/slow?ms=60000")
			c.waitInflight(t, 1)
			sent := c.signal(t, syscall.SIGTERM)
			time.Sleep(400 * time.Millisecond)
			c.signal(t, syscall.SIGTERM)
			st := c.waitExit(t, 5*time.Second)
			el := time.Since(sent)
			t.Logf("measured: REPEAT_SIGNAL=%s, second signal at 400 ms: exit %d %v after the first", tt.repeat, st.ExitCode(), el.Round(time.Millisecond))
			if st.ExitCode() != ExitDeadline || el < tt.min || el > tt.max {
				t.Errorf("exit %v %v after the first signal, want 1 within [%v, %v]", st, el, tt.min, tt.max)
			}
			sigs := find(c.snapshot(), record.EventSignal)
			if len(sigs) != 2 || sigs[1].Msg != tt.msg {
				t.Errorf("signal events %+v, want the second with msg %q", sigs, tt.msg)
			}
			<-res
		})
	}
}
