package kubeapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
)

// kubeconfig writes a kubeconfig with contexts a (current) and b, both on
// server, and returns its path.
func kubeconfig(t *testing.T, server string) string {
	t.Helper()
	cfg := `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: ` + server + `, insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: t0k3n}
contexts:
- name: a
  context: {cluster: c, user: u}
- name: b
  context: {cluster: c, user: u}
current-context: a
`
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func versionServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	if h == nil {
		h = func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/version" || r.Header.Get("Authorization") != "Bearer t0k3n" {
				http.Error(w, "no", http.StatusNotFound)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"major":"1","minor":"34","gitVersion":"v1.34.4"}`))
		}
	}
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestConnect(t *testing.T) {
	srv := versionServer(t, nil)
	path := kubeconfig(t, srv.URL)
	before, _ := os.ReadFile(path)

	c, err := Connect(context.Background(), Config{Kubeconfig: path})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Info(); got != (Info{Context: "a", Server: srv.URL, ServerVersion: "v1.34.4"}) {
		t.Errorf("info %+v", got)
	}
	if c.Clientset() == nil {
		t.Error("no clientset")
	}
	c, err = Connect(context.Background(), Config{Kubeconfig: path, Context: "b"})
	if err != nil || c.Info().Context != "b" {
		t.Fatalf("context b: %v %+v", err, c)
	}
	// $KUBECONFIG is followed when no path is given.
	t.Setenv("KUBECONFIG", path)
	if _, err := Connect(context.Background(), Config{}); err != nil {
		t.Errorf("through $KUBECONFIG: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the kubeconfig was written")
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("files beside the kubeconfig: %v", ents)
	}
}

func TestConnectErrors(t *testing.T) {
	srv := versionServer(t, nil)
	path := kubeconfig(t, srv.URL)
	broken := versionServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "etcd down", http.StatusInternalServerError)
	})
	stuck := make(chan struct{})
	slow := versionServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stuck:
		case <-r.Context().Done():
		}
	})
	defer close(stuck)
	defer func(d time.Duration) { connectTimeout = d }(connectTimeout)
	connectTimeout = 200 * time.Millisecond

	tests := []struct {
		name string
		cfg  Config
		want []string // in the error
	}{
		// An unknown context lists those that exist.
		{"unknown context", Config{Kubeconfig: path, Context: "x"}, []string{path, `no context "x"`, "a, b"}},
		// A missing kubeconfig names its path.
		{"missing file", Config{Kubeconfig: path + ".none"}, []string{path + ".none"}},
		// A server that fails names the server, the context and the file.
		{"server error", Config{Kubeconfig: kubeconfig(t, broken.URL)}, []string{broken.URL, "context a", "etcd down"}},
		// A server that does not answer is given up after the bound.
		{"no answer", Config{Kubeconfig: kubeconfig(t, slow.URL)}, []string{slow.URL, "no answer to GET /version within 200ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := Connect(context.Background(), tt.cfg)
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
		})
	}
}

func TestNew(t *testing.T) {
	cs := fake.NewSimpleClientset()
	c := New(cs, Info{Context: "x"})
	if c.Clientset() != cs || c.Info().Context != "x" {
		t.Error("New does not keep what it was given")
	}
}
