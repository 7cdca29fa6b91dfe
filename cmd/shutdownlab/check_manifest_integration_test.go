package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/record"
)

// TestCheckManifestExamples runs `check --manifest` (Docker) on each
// example manifest of examples/kubernetes/manifests with the project's Go
// target as the image, at the judged propagation delay (2 s) only, and
// asserts the documented verdict and exit code: the 3 s preStop sleep is
// safe (at two phases of the 20 ms requests); without a preStop it is not,
// and the pre-stop search finds a sleep that is; a grace period shorter
// than the 3 s requests' drain ends in SIGKILL; a stopSignal the app
// ignores (SIGWINCH) ends in SIGKILL, and check's signal search
// recommends the one it handles (with 300 ms requests, long enough for
// the search's phase split to be conclusive); a rolling update's new pod
// without a readinessProbe, whose app starts in 5 s, takes traffic it
// fails (at two phases), and with the probe (surge-ready) the same update
// is safe.
func TestCheckManifestExamples(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	t.Chdir("../..") // images compile from the module root; the examples' paths
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	target, _, err := images.BuildProject(ctx, eng, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	short := []string{"--propagation", "2s", "--path", "/slow?ms=20"}
	for _, tc := range []struct {
		name     string
		manifest string
		args     []string
		code     int
		want     []string
	}{
		{"preStop sleep 3s", "prestop-sleep", short, exitOK,
			[]string{"propagation 2s: safe: 0 failed", "at your propagation delay, 2s: SAFE"}},
		{"preStop sleep 3s, half a request later", "prestop-sleep", append(short, "--set", "action.at=2010ms"), exitOK,
			[]string{"at your propagation delay, 2s: SAFE"}},
		{"no preStop", "no-prestop", short, exitFailed,
			[]string{"propagation 2s: UNSAFE", "sent while the endpoint was still registered", "no preStop sleep holds the stop signal back",
				"at your propagation delay, 2s: UNSAFE", "measured safe (the smallest whole-second sleep tried"}},
		{"grace shorter than the drain", "grace-too-short", []string{"--propagation", "2s", "--path", "/slow?ms=3000", "--search-signals", "none"}, exitFailed,
			[]string{"at the grace period's SIGKILL", "SIGKILLed: terminationGracePeriodSeconds 4 ended before it exited"}},
		// 300 ms requests: with 20 ms ones the search's SIGTERM run
		// could not tell drops from the signal's delivery latency in 1
		// of 6 runs (the phase split is inconclusive, check says so)
		{"a stop signal the app ignores", "stopsignal-ignored", []string{"--propagation", "2s", "--path", "/slow?ms=300", "--search-signals", "SIGWINCH,SIGTERM"}, exitFailed,
			[]string{"SIGKILLed: terminationGracePeriodSeconds 8", "SIGWINCH: no effect seen", "STOPSIGNAL SIGTERM: measured clean"}},
		{"a new pod without a readiness probe", "surge-not-ready", short, exitFailed,
			[]string{"rollout: a new pod replaces it", "propagation 2s: UNSAFE", "sent by the proxy to the new pod before its app served them (without a readinessProbe",
				"new pods: give the container a readinessProbe"}},
		{"a new pod without a readiness probe, half a request later", "surge-not-ready", append(short, "--set", "action.at=2010ms"), exitFailed,
			[]string{"sent by the proxy to the new pod before its app served them"}},
		{"a new pod with a readiness probe", "surge-ready", short, exitOK,
			[]string{"it is ready once its readinessProbe, GET /readyz", "propagation 2s: safe: 0 failed", "at your propagation delay, 2s: SAFE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"check", "--manifest", filepath.Join("examples/kubernetes/manifests", tc.manifest+".yaml"),
				"--image", target, "--out", out}, tc.args...)
			code, stdout, stderr := runMain(t, ctx, args...)
			t.Logf("check --manifest %s: exit %d\n%s\nstderr:\n%s", tc.manifest, code, stdout, stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			files, _ := filepath.Glob(filepath.Join(out, "*-check-manifest-*", "verdict.txt"))
			if len(files) != 1 {
				t.Fatalf("verdict.txt of the sweep: %q, want one", files)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("verdict lacks %q", w)
				}
			}
		})
	}
}

// interruptOn is a writer (the command's stderr) that sends an interrupt
// to sigs the first time what it was written contains on, 1 s later: a
// Ctrl-C while that is going on.
type interruptOn struct {
	mu   sync.Mutex
	b    strings.Builder
	on   string
	sigs chan<- os.Signal
	sent bool
}

func (w *interruptOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if !w.sent && strings.Contains(w.b.String(), w.on) {
		w.sent = true
		go func() { time.Sleep(time.Second); w.sigs <- os.Interrupt }()
	}
	return len(p), nil
}

func (w *interruptOn) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestCheckManifestInterrupted (Docker): a Ctrl-C during the first
// delay's run, handled as main handles it (interrupts), leaves a verdict
// that says the check was interrupted: the first delay was cut short, the
// second never ran, the judged one could not be told; nothing blames the
// ready path or the port. Exit 2.
func TestCheckManifestInterrupted(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	t.Chdir("../..")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	target, _, err := images.BuildProject(ctx, eng, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rctx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	sigs := make(chan os.Signal, 2)
	var said strings.Builder
	go interrupts(sigs, interrupt, &said, func() { t.Error("a second interrupt was sent") })
	stderr := &interruptOn{on: ": starting (load", sigs: sigs}
	var stdout strings.Builder
	out := t.TempDir()
	code := Main(rctx, []string{"check", "--manifest", "examples/kubernetes/manifests/no-prestop.yaml", "--image", target, "--out", out,
		"--propagation", "0s,2s", "--path", "/slow?ms=20"}, &stdout, stderr)
	t.Logf("exit %d\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	if code != exitInvalid {
		t.Errorf("exit %d, want %d", code, exitInvalid)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*-check-manifest-*", "verdict.txt"))
	if len(files) != 1 {
		t.Fatalf("verdict.txt: %q, want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"interrupted: the check was stopped before its end",
		"propagation 0s: not measured: the check was interrupted during its run",
		"propagation 2s: not measured: the check was interrupted before it ran",
		"at your propagation delay, 2s: could not tell: the check was interrupted before it was measured"} {
		if !strings.Contains(string(b), w) {
			t.Errorf("verdict lacks %q:\n%s", w, b)
		}
	}
	if strings.Contains(string(b), "--ready-path") {
		t.Errorf("verdict blames the ready path:\n%s", b)
	}
}

// execMissingManifest is a Deployment whose preStop hook execs `sleep 3`
// in an image without a sleep binary (the project's Go target is FROM
// scratch).
const execMissingManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: prestop-exec-missing
spec:
  replicas: 3
  strategy:
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
  selector:
    matchLabels: {app: prestop-exec-missing}
  template:
    metadata:
      labels: {app: prestop-exec-missing}
    spec:
      terminationGracePeriodSeconds: 30
      containers:
      - name: web
        image: shutdownlab/target
        ports:
        - {name: http, containerPort: 8080}
        env:
        - {name: MODE, value: full}
        - {name: DRAIN_MS, value: "20000"}
        readinessProbe:
          httpGet: {path: /readyz, port: http}
          periodSeconds: 1
          failureThreshold: 1
        lifecycle:
          preStop:
            exec: {command: ["sleep", "3"]}
`

// TestCheckManifestFailedHook (Docker): a preStop exec whose command the
// image does not have fails as it would under the kubelet: the run
// records it (exit code, the runtime's output) and the stop signal
// follows the failed exec at once; the verdict (stdout, verdict.txt)
// names the failed hook as the kubelet's FailedPreStopHook, its advice
// names the native sleep, report.md notes it, and the check exits 1.
func TestCheckManifestFailedHook(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	t.Chdir("../..")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	target, _, err := images.BuildProject(ctx, eng, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(t.TempDir(), "prestop-exec-missing.yaml")
	if err := os.WriteFile(manifest, []byte(execMissingManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runMain(t, ctx, "check", "--manifest", manifest, "--image", target, "--out", out,
		"--propagation", "2s", "--path", "/slow?ms=20", "--search-signals", "none")
	t.Logf("exit %d\n%s\nstderr:\n%s", code, stdout, stderr)
	if code != exitFailed {
		t.Errorf("exit %d, want %d (a defect)", code, exitFailed)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*-check-manifest-deployment-prestop-exec-missing"))
	if len(dirs) != 1 {
		t.Fatalf("result directory of the sweep: %q, want one", dirs)
	}
	failed := `preStop exec ["sleep", "3"] failed (exit 126: command not found in the image; output: "`
	kubelet := "the kubelet records FailedPreStopHook and sends the stop signal at once"
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	verdictTxt := read("verdict.txt")
	for _, w := range []string{"  hook: " + failed, kubelet + " (in the run)", "at your propagation delay, 2s: UNSAFE",
		"a native lifecycle.preStop.sleep (Kubernetes 1.30+) needs no shell or sleep binary in the image",
		"this exec only sleeps: lifecycle.preStop.sleep.seconds: 3 does the same"} {
		if !strings.Contains(verdictTxt, w) {
			t.Errorf("verdict.txt lacks %q", w)
		}
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q", w)
		}
	}
	if !strings.Contains(stderr, "replica-0: "+failed) {
		t.Errorf("the progress output does not name the failed hook")
	}
	if md := read("report.md"); !strings.Contains(md, failed) || !strings.Contains(md, kubelet) {
		t.Errorf("report.md does not note the failed hook")
	}
	events, _ := filepath.Glob(filepath.Join(dirs[0], "run-001", "events.json"))
	if len(events) == 0 { // one directory per variant, when there are several
		events, _ = filepath.Glob(filepath.Join(dirs[0], "*", "run-001", "events.json"))
	}
	if len(events) != 1 {
		t.Fatalf("events.json: %q", events)
	}
	b, err := os.ReadFile(events[0])
	if err != nil {
		t.Fatal(err)
	}
	var m record.Meta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	te := m.Action.Termination()
	h := te.Hook
	if h == nil || !h.Failed() || h.Code != 126 || !strings.Contains(h.Output, "executable file not found") {
		t.Fatalf("hook record %+v", h)
	}
	// The kubelet sends the stop signal the moment the failed hook
	// returned: nothing of the harness's may come between them.
	if gap := time.Duration(m.Action.SentNs - h.EndNs); gap < 0 || gap > 100*time.Millisecond {
		t.Errorf("the stop signal went %s after the failed hook ended, want at once", gap)
	}
	t.Logf("the failed exec took %s; the signal followed %s later", time.Duration(h.EndNs-te.DeletedNs), time.Duration(m.Action.SentNs-h.EndNs))
}
