package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHealth checks the health subcommand's exit codes against a local
// server answering 200 on /readyz and 503 on /down.
func TestHealth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/down" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	env := func(k string) string {
		if k == "PORT" {
			return port
		}
		return ""
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"/readyz"}, 0},
		{[]string{"readyz"}, 0},
		{[]string{"/down"}, 1},
		{nil, 2},
		{[]string{"/a", "/b"}, 2},
	} {
		if got := health(tc.args, env, io.Discard); got != tc.want {
			t.Errorf("health %v = %d, want %d", tc.args, got, tc.want)
		}
	}
	srv.Close()
	if got := health([]string{"/readyz"}, env, io.Discard); got != 1 {
		t.Errorf("health against a closed port = %d, want 1", got)
	}
}
