package kube

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func readFile(t *testing.T, name string, opts Options) (Pod, error) {
	t.Helper()
	path := filepath.Join("testdata", name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Read(path, b, opts)
}

// TestReadDeployment takes what the kubelet would: command and args,
// literal env (and a valueFrom entry only with the user's value), the
// ports, the hook, the stop signal, the grace period, the readiness probe
// with its named port resolved and Kubernetes' defaults, the rollout's
// pod counts; and it names what it does not emulate.
func TestReadDeployment(t *testing.T) {
	p, err := readFile(t, "deployment.yaml", Options{Container: "app", Env: map[string]string{"DB_PASSWORD": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != "Deployment" || p.Name != "web" || p.Image != "example/web:1.2" || p.Replicas != 3 {
		t.Errorf("workload %s %s image %s replicas %d", p.Kind, p.Name, p.Image, p.Replicas)
	}
	if !slices.Equal(p.Command, []string{"/app"}) || !slices.Equal(p.Args, []string{"serve", "--port", "8080"}) {
		t.Errorf("command %q args %q", p.Command, p.Args)
	}
	if want := []EnvVar{{"MODE", "full"}, {"DB_PASSWORD", "x"}}; !slices.Equal(p.Env, want) {
		t.Errorf("env %v, want %v", p.Env, want)
	}
	if p.PreStop == nil || p.PreStop.Kind != HookSleep || p.PreStop.Sleep != 5*time.Second {
		t.Errorf("preStop %+v", p.PreStop)
	}
	if p.StopSignal != "SIGQUIT" || p.GracePeriod != 20*time.Second || p.MinReady != 2*time.Second {
		t.Errorf("stop signal %q grace %s minReady %s", p.StopSignal, p.GracePeriod, p.MinReady)
	}
	want := Probe{Path: "/readyz", Port: 8080, Period: 2 * time.Second, Timeout: time.Second, FailureThreshold: 3, SuccessThreshold: 1}
	if p.Readiness == nil || *p.Readiness != want {
		t.Errorf("readiness %+v, want %+v", p.Readiness, want)
	}
	if p.Strategy != (Strategy{Kind: "RollingUpdate", MaxSurge: 1, MaxUnavailable: 0}) {
		t.Errorf("strategy %+v", p.Strategy)
	}
	for _, w := range []string{"document 1 (Service)", "containers[1] (proxy): not run", "volumes[0] (cache): not mounted", "livenessProbe: not run", "resources: not applied"} {
		if !slices.ContainsFunc(p.Unsupported, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("unsupported lacks %q: %q", w, p.Unsupported)
		}
	}
}

// TestReadStatefulSetAndPod: a StatefulSet rolls one pod at a time
// without surge; an httpGet hook's port; a tcpSocket readiness probe,
// init containers, sidecars and a partition are named, not dropped; a
// bare Pod with an exec hook has one replica and no rollout.
func TestReadStatefulSetAndPod(t *testing.T) {
	p, err := readFile(t, "statefulset.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Strategy != (Strategy{Kind: "RollingUpdate", MaxUnavailable: 1}) || p.Replicas != 2 || p.GracePeriod != DefaultGracePeriod {
		t.Errorf("strategy %+v replicas %d grace %s", p.Strategy, p.Replicas, p.GracePeriod)
	}
	if p.PreStop == nil || p.PreStop.Kind != HookHTTPGet || p.PreStop.Port != 9000 || p.PreStop.Path != "/drain" || p.Readiness != nil {
		t.Errorf("preStop %+v readiness %+v", p.PreStop, p.Readiness)
	}
	for _, w := range []string{"readinessProbe: only httpGet", "initContainers[0] (migrate): init container", "initContainers[1] (logs): sidecar", "partition: 1"} {
		if !slices.ContainsFunc(p.Unsupported, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("unsupported lacks %q: %q", w, p.Unsupported)
		}
	}
	p, err = readFile(t, "pod.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Replicas != 1 || p.Strategy.Kind != "" || p.PreStop == nil || !slices.Equal(p.PreStop.Command, []string{"/app", "prestop"}) {
		t.Errorf("pod: replicas %d strategy %+v preStop %+v", p.Replicas, p.Strategy, p.PreStop)
	}
}

// TestReadErrors: every refusal names the file and the field, and says
// what to do.
func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, file string
		opts       Options
		want       []string
	}{
		{"valueFrom without a value", "deployment.yaml", Options{Container: "app"},
			[]string{"testdata/deployment.yaml", "spec.template.spec.containers[0].env[1] (DB_PASSWORD)", "give one with --env DB_PASSWORD=VALUE"}},
		{"two containers, none chosen", "deployment.yaml", Options{},
			[]string{"holds 2 containers (app, proxy)", "--container"}},
		{"no such container", "deployment.yaml", Options{Container: "db"},
			[]string{`--container "db"`, "(app, proxy)"}},
		{"a misspelt field is not a default", "typo.yaml", Options{},
			[]string{"testdata/typo.yaml", "document 1 (Deployment)", "terminationGracePeriodSecond"}},
		{"no such workload", "pod.yaml", Options{Workload: "web"},
			[]string{`--workload "web"`, "Pod/single"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readFile(t, tt.file, tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestReadInline covers what the files do not: no workload, several,
// picking by kind and name, a named port that is not declared, a
// negative grace period, Recreate, and the size bound.
func TestReadInline(t *testing.T) {
	dep := func(name, extra string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + "}\nspec:\n" + extra +
			"  template:\n    spec:\n      containers: [{name: app, image: x, readinessProbe: {httpGet: {port: web}}}]\n"
	}
	tests := []struct {
		name, data string
		opts       Options
		want       string
	}{
		{"nothing to run", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n", Options{}, "no Deployment, StatefulSet or Pod"},
		{"two workloads", dep("a", "") + "---\n" + dep("b", ""), Options{}, "holds 2 workloads (Deployment/a, Deployment/b)"},
		{"undeclared port name", dep("a", ""), Options{}, `readinessProbe.httpGet.port: "web" names no declared container port`},
		{"picked by kind and name", dep("a", "") + "---\n" + dep("b", ""), Options{Workload: "Deployment/b"}, `"web" names no declared`},
		{"unknown strategy", dep("a", "  strategy: {type: Blue}\n"), Options{}, `spec.strategy.type: "Blue"`},
		{"negative replicas", dep("a", "  replicas: -1\n"), Options{}, "spec.replicas: -1 is negative"},
		{"too big", strings.Repeat("#", MaxManifestBytes+1), Options{}, "more than the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read("m.yaml", []byte(tt.data), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
	p, err := Read("m.yaml", []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: r}\nspec:\n  replicas: 4\n  strategy: {type: Recreate}\n  template:\n    spec:\n      terminationGracePeriodSeconds: 0\n      containers: [{name: app, image: x}]\n"), Options{})
	if err != nil || p.Strategy != (Strategy{Kind: "Recreate", MaxUnavailable: 4}) || p.GracePeriod != 0 {
		t.Errorf("recreate: %+v %v", p.Strategy, err)
	}
}

// FuzzRead: no manifest makes Read panic or hang; a manifest it accepts
// has an image and a sane count of replicas.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"deployment.yaml", "statefulset.yaml", "pod.yaml", "typo.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("kind: Pod\nspec: {containers: [{name: a, image: b}]}\n---\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read("fuzz.yaml", data, Options{Env: map[string]string{"DB_PASSWORD": "x"}, Container: "app"})
		if err != nil {
			return
		}
		if p.Image == "" || p.Replicas < 0 || p.GracePeriod < 0 {
			t.Errorf("accepted %+v", p)
		}
	})
}
