package check

import (
	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/scenarios"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// testPod is the manifest of internal/kube/testdata/deployment.yaml as
// read with DB_PASSWORD given.
func testPod(t *testing.T) kube.Pod {
	t.Helper()
	b, err := os.ReadFile("../internal/kube/testdata/deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pod, err := kube.Read("deployment.yaml", b, kube.Options{Container: "app", Env: map[string]string{"DB_PASSWORD": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

// TestManifestPort: --port, else the readiness probe's, else the first
// declared port, else the image's only EXPOSE, else 8080.
func TestManifestPort(t *testing.T) {
	probe := kube.Pod{Readiness: &kube.Probe{Port: 9000}, Ports: []kube.Port{{Port: 7000}}}
	for _, tt := range []struct {
		flag    int
		pod     kube.Pod
		exposed []int
		want    int
	}{
		{8081, probe, []int{80}, 8081},
		{0, probe, []int{80}, 9000},
		{0, kube.Pod{Ports: []kube.Port{{Port: 7000}, {Port: 7001}}}, []int{80}, 7000},
		{0, kube.Pod{}, []int{80}, 80},
		{0, kube.Pod{}, []int{80, 443}, 8080},
	} {
		if got := manifestPort(tt.flag, tt.pod, tt.exposed); got != tt.want {
			t.Errorf("manifestPort(%d, %+v, %v) = %d, want %d", tt.flag, tt.pod, tt.exposed, got, tt.want)
		}
	}
}

// TestManifestScenario: the generated scenario is valid and runs the
// manifest's container as the kubelet would, one variant per delay; the
// pre-stop search varies the sleep at the one judged delay instead.
func TestManifestScenario(t *testing.T) {
	o := manifestOpts{pod: testPod(t), image: "example/web:1.2", imageStopSignal: "SIGTERM", port: 8080, readyPath: "/readyz",
		path: "/slow?ms=20", runs: 2, delays: []time.Duration{0, time.Second, 5 * time.Second}, stated: time.Second}
	sc, err := manifestScenario(o)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand(nil)
	if err != nil || len(vs) != 3 {
		t.Fatalf("%d variants, %v", len(vs), err)
	}
	sp := vs[2].Spec
	tt := sp.Action.Terminate()
	checks := []struct {
		what      string
		got, want any
	}{
		{"command", sp.Target.Command, []string{"/app"}},
		{"args", sp.Target.Args, []string{"serve", "--port", "8080"}},
		{"env", sp.Target.Env, map[string]string{"MODE": "full", "DB_PASSWORD": "x"}},
		{"action kind", sp.Action.Kind, scenarios.ActionTerminate},
		{"grace", tt.Grace.D(), 20 * time.Second},
		{"preStop sleep", tt.PreStop.Sleep.D(), 5 * time.Second},
		{"stop signal (lifecycle.stopSignal)", tt.StopSignal, "SIGQUIT"},
		{"propagation", sp.Proxy.DeregisterAfter.D(), 5 * time.Second},
		{"window covers the grace period", sp.Observe.Window.D() >= 22*time.Second, true},
		// the new pod must be available first: minReadySeconds 2 + 10 s to
		// start + two probe periods of 2 s, before the deletion's 5 s.
		{"load covers the new pod, then the slowest of propagation and hook", sp.Load.Duration.D(), manifestAt + 16*time.Second + 5*time.Second + manifestTail},
		{"new pod before the deletion (maxUnavailable 0)", tt.NewPod.BeforeDeletion, true},
		{"new pod minReadySeconds", tt.NewPod.MinReady.D(), 2 * time.Second},
		{"new pod readiness", *tt.NewPod.Readiness, scenarios.Readiness{Path: "/readyz", Port: 8080, Period: scenarios.Duration(2 * time.Second), Timeout: scenarios.Duration(time.Second), SuccessThreshold: 1}},
		{"runs", sp.Runs, 2},
		{"pods: the Deployment's replicas", sp.Replicas, 3},
	}
	for _, c := range checks {
		if !equalAny(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	so := o
	so.delays, so.sleeps = []time.Duration{time.Second}, []time.Duration{2 * time.Second, 3 * time.Second}
	so.preStop = &kube.Hook{Kind: kube.HookSleep, Sleep: 2 * time.Second}
	sc, err = manifestScenario(so)
	if err != nil {
		t.Fatal(err)
	}
	if vs, err = sc.Expand(nil); err != nil || len(vs) != 2 {
		t.Fatalf("search: %d variants, %v", len(vs), err)
	}
	if d, s := vs[1].Spec.Proxy.DeregisterAfter.D(), vs[1].Spec.Action.Terminate().PreStop.Sleep.D(); d != time.Second || s != 3*time.Second {
		t.Errorf("search variant 2: propagation %s, sleep %s; want 1s, 3s", d, s)
	}
}

func equalAny(a, b any) bool {
	switch x := a.(type) {
	case []string:
		return slices.Equal(x, b.([]string))
	case map[string]string:
		y := b.(map[string]string)
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if y[k] != v {
				return false
			}
		}
		return true
	}
	return a == b
}

// TestExampleManifests: every example manifest reads and makes a valid
// scenario, so an example cannot rot.
func TestExampleManifests(t *testing.T) {
	files, err := filepath.Glob("../examples/kubernetes/manifests/*.yaml")
	if err != nil || len(files) < 4 {
		t.Fatalf("example manifests: %v, %v", files, err)
	}
	for _, file := range files {
		pod, err := readManifest(file, kube.Options{})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		delays, stated := DefaultPropagation, DefaultDelay
		ready := "/readyz"
		if pod.Readiness != nil {
			ready = pod.Readiness.Path
		}
		o := manifestOpts{pod: pod, image: "shutdownlab/target:x", imageStopSignal: "SIGTERM", port: manifestPort(0, pod, nil),
			readyPath: ready, path: "/slow?ms=20", runs: 1, delays: delays, stated: stated}
		if _, err := manifestScenario(o); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		if len(pod.Unsupported) > 0 {
			t.Errorf("%s: the examples use only what the emulation runs: %q", file, pod.Unsupported)
		}
	}
}

// TestLoadLength: the load runs past the deletion, the slowest
// propagation, the hook and a new pod's joining, by manifestTail; a new
// pod the deletion waits for adds its readiness bound before the
// deletion (its container's start without a probe), one started with the
// deletion its readiness bound and the propagation after it.
func TestLoadLength(t *testing.T) {
	s := time.Second
	surge := kube.Strategy{Kind: "RollingUpdate", MaxSurge: 1}
	unavailable := kube.Strategy{Kind: "RollingUpdate", MaxUnavailable: 1}
	probe := &kube.Probe{Period: s, SuccessThreshold: 1}
	sleep3 := &kube.Hook{Kind: kube.HookSleep, Sleep: 3 * s}
	for _, tt := range []struct {
		name string
		pod  kube.Pod
		want time.Duration
	}{
		{"a bare pod: the hook", kube.Pod{Kind: "Pod", GracePeriod: 30 * s, PreStop: sleep3}, 2*s + 3*s + 3*s},
		{"a bare pod, grace shorter than the hook", kube.Pod{Kind: "Pod", GracePeriod: s, PreStop: sleep3}, 2*s + 2*s + 3*s},
		{"surge without a probe: the container's start first", kube.Pod{Kind: "Deployment", Strategy: surge, GracePeriod: 30 * s, PreStop: sleep3},
			2*s + newPodContainerStart + 3*s + 3*s},
		{"surge with a probe", kube.Pod{Kind: "Deployment", Strategy: surge, GracePeriod: 30 * s, PreStop: sleep3, Readiness: probe, MinReady: s},
			2*s + (2*s + newPodStartBound + s) + 3*s + 3*s},
		{"maxUnavailable 1: the new pod joins after the deletion", kube.Pod{Kind: "Deployment", Strategy: unavailable, GracePeriod: 30 * s, PreStop: sleep3},
			2*s + newPodContainerStart + 2*s + 3*s},
	} {
		o := manifestOpts{pod: tt.pod, delays: []time.Duration{s, 2 * s}}
		if got := o.loadLength(); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}
