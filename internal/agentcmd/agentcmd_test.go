package agentcmd

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Run turns the body's error into the exit code and one stderr line.
func TestRunExitCodes(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		err  error
		code int
		out  string // substring of stderr; "" = stderr empty
	}{
		{"ok", nil, nil, ExitOK, ""},
		{"help", []string{"-h"}, errors.New("body must not run"), ExitOK, "Every flag also reads T_<NAME>"},
		{"unknown flag", []string{"-nope"}, nil, ExitUsage, "t: flag provided but not defined: -nope"},
		{"positional argument", []string{"extra"}, nil, ExitUsage, `t: unexpected argument "extra"`},
		{"bad flag", nil, BadFlag("n", "0", "must be > 0"), ExitUsage, `t: invalid -n="0": must be > 0`},
		{"wrapped bad flag", nil, errors.Join(BadFlag("n", "x", "why")), ExitUsage, `invalid -n="x": why`},
		{"exit code", nil, Exit(ExitNotReady, errors.New("target x not ready")), ExitNotReady, "t: target x not ready"},
		{"exit 0 with a message", nil, Exit(ExitOK, errors.New("stopped")), ExitOK, "t: stopped"},
		{"any other error", nil, errors.New("write: broken pipe"), ExitOutput, "t: write: broken pipe"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			c := New("t", "T", "usage: t [flags]", &stderr)
			c.Flags.Int("n", 1, "a number")
			code := c.Run(tt.args, func() error { return tt.err })
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if tt.out == "" && stderr.Len() != 0 || !strings.Contains(stderr.String(), tt.out) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.out)
			}
		})
	}
}

// Flags fall back to PREFIX_NAME; the command line wins.
func TestRunEnvFallback(t *testing.T) {
	t.Setenv("T_N", "5")
	t.Setenv("T_M", "6")
	c := New("t", "T", "usage", &bytes.Buffer{})
	n, m := c.Flags.Int("n", 1, ""), c.Flags.Int("m", 1, "")
	if code := c.Run([]string{"-m", "7"}, func() error { return nil }); code != ExitOK || *n != 5 || *m != 7 {
		t.Errorf("exit %d, n=%d m=%d; want 0, 5 from the environment, 7 from the flag", code, *n, *m)
	}
}

func TestPositive(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // "" = no error
	}{
		{nil, ""},
		{[]string{"-i", "0"}, `invalid -i="0": must be > 0`},
		{[]string{"-i64", "-1"}, `invalid -i64="-1"`},
		{[]string{"-u", "0"}, `invalid -u="0"`},
		{[]string{"-f", "0"}, `invalid -f="0"`},
		{[]string{"-d", "0s"}, `invalid -d="0s"`},
		{[]string{"-d", "-2s", "-i", "0"}, `invalid -i="0"`}, // the first named flag
	} {
		c := New("t", "T", "usage", &bytes.Buffer{})
		c.Flags.Int("i", 1, "")
		c.Flags.Int64("i64", 1, "")
		c.Flags.Uint64("u", 1, "")
		c.Flags.Float64("f", 1, "")
		c.Flags.Duration("d", time.Second, "")
		if err := c.Flags.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		err := c.Positive("i", "i64", "u", "f", "d")
		var fe *FlagError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v, want nil", tt.args, err)
		case tt.want != "" && (!errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: %v, want a FlagError %q", tt.args, err, tt.want)
		}
	}
}

// The first signal cancels the context and is logged.
func TestStopOn(t *testing.T) {
	var stderr bytes.Buffer
	c := New("t", "T", "usage", &stderr)
	sig := make(chan os.Signal, 1)
	ctx, cancel := c.StopOn(sig, " (drain up to 1s)")
	defer cancel()
	sig <- syscall.SIGTERM
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("context not cancelled by the signal")
	}
	cancel()
	if got := stderr.String(); got != "t: terminated: stopping (drain up to 1s)\n" {
		t.Errorf("stderr %q", got)
	}
}

func TestWaitReady(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	target := srv.Listener.Addr().String()
	var fe *FlagError
	var ee *exitError
	for _, tt := range []struct {
		path string
		ok   func(error) bool
	}{
		{"", func(err error) bool { return err == nil }},
		{"/readyz", func(err error) bool { return err == nil }},
		{"readyz", func(err error) bool { return errors.As(err, &fe) && fe.Flag == "wait-ready" }},
		{"/never", func(err error) bool { return errors.As(err, &ee) && ee.code == ExitNotReady }},
	} {
		c := New("t", "T", "usage", &bytes.Buffer{})
		r := c.ReadyFlags("help")
		r.Path, r.Timeout = tt.path, 300*time.Millisecond
		if err := c.WaitReady(context.Background(), r, target, ""); !tt.ok(err) {
			t.Errorf("path %q: %v", tt.path, err)
		}
	}
}
