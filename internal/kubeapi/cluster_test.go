package kubeapi

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/shutdownlab/shutdownlab/record"
)

// TestCluster runs the package against a real API server: the kit's
// (docs/kube-kit.md). It runs only when SHUTDOWNLAB_TEST_KUBECONFIG
// names a kubeconfig (make test-kube sets it); it pushes its image to the
// registry host of SHUTDOWNLAB_REGISTRY (default 127.0.0.1:5000, the
// kit's) and works in a namespace of its own, deleted at its end.
func TestCluster(t *testing.T) {
	kubeconfig := os.Getenv("SHUTDOWNLAB_TEST_KUBECONFIG")
	if kubeconfig == "" {
		t.Skip("SHUTDOWNLAB_TEST_KUBECONFIG not set: no cluster to test against (make test-kube)")
	}
	registry, _, _ := strings.Cut(os.Getenv("SHUTDOWNLAB_REGISTRY"), "/")
	if registry == "" {
		registry = "127.0.0.1:5000"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	image := pushSmokeImage(t, ctx, registry)

	c, err := Connect(ctx, Config{Kubeconfig: kubeconfig})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("connected: %+v", c.Info())
	ns := fmt.Sprintf("kubeapi-smoke-%d", time.Now().Unix())
	if err := c.CreateNamespace(ctx, ns, map[string]string{"shutdownlab.test": "kubeapi"}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		start := time.Now()
		if err := c.DeleteNamespace(context.Background(), ns, 2*time.Minute); err != nil {
			t.Error(err)
		}
		t.Logf("namespace deleted in %s", time.Since(start).Round(time.Millisecond))
	}()
	if l, err := c.Namespaces(ctx, "shutdownlab.test=kubeapi"); err != nil || len(l) != 1 || l[0].Name != ns || l[0].CreatedNs == 0 {
		t.Errorf("namespaces: %+v %v", l, err)
	}
	rec, err := c.Watch(ctx, ns, "app=smoke", "smoke")
	if err != nil {
		t.Fatal(err)
	}

	replicas := int32(2)
	labels := map[string]string{"app": "smoke"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "smoke"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: ptr[int64](10),
					Containers: []corev1.Container{{
						Name: "app", Image: image, Args: []string{"serve"},
						ReadinessProbe: &corev1.Probe{PeriodSeconds: 1, ProbeHandler: corev1.ProbeHandler{
							HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(8080)}}},
					}},
				},
			},
		},
	}
	step := func(what string, f func() error) {
		t.Helper()
		start := time.Now()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: %s", what, time.Since(start).Round(time.Millisecond))
	}
	step("create deployment", func() error { return c.CreateDeployment(ctx, ns, d) })
	step("create service", func() error {
		ip, err := c.CreateService(ctx, ns, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "smoke"},
			Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 8080}}}})
		t.Logf("cluster IP %s", ip)
		return err
	})
	step("deployment available", func() error { return c.WaitDeploymentAvailable(ctx, ns, "smoke", time.Minute) })

	// The agent's path: a pod that prints and exits, its log followed.
	agent := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent"}, Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers:    []corev1.Container{{Name: "agent", Image: image, Args: []string{"print", "5"}}}}}
	var logs bytes.Buffer
	step("create agent, follow its log", func() error {
		if err := c.CreatePod(ctx, ns, agent); err != nil {
			return err
		}
		return c.FollowLogs(ctx, ns, "agent", "agent", &logs)
	})
	if logs.String() != "line 0\nline 1\nline 2\nline 3\nline 4\n" {
		t.Errorf("agent log %q", logs.String())
	}
	step("agent exit", func() error {
		exit, err := c.WaitPodExit(ctx, ns, "agent", 30*time.Second)
		if err == nil && (!exit.Exited || exit.Code != 0 || exit.Reason != "Completed") {
			err = fmt.Errorf("exit %+v", exit)
		}
		return err
	})

	// A target pod's log, followed until its deletion ends it.
	k := rec.Snapshot()
	if len(k.Pods) != 2 {
		t.Fatalf("pods seen: %s", js(k.Pods))
	}
	victim := k.Pods[0].Name
	var vlog bytes.Buffer
	followed := make(chan error, 1)
	go func() { followed <- c.FollowLogs(ctx, ns, victim, "", &vlog) }()
	time.Sleep(500 * time.Millisecond)
	sent, err := c.DeletePod(ctx, ns, victim, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-followed; err != nil || vlog.String() != "up\nSIGTERM\nbye\n" {
		t.Errorf("victim's log: %v %q", err, vlog.String())
	}
	step("replacement available", func() error { return c.WaitDeploymentAvailable(ctx, ns, "smoke", time.Minute) })

	var restartSent, restartDone int64
	step("rollout restart", func() (err error) {
		if restartSent, err = c.RolloutRestart(ctx, ns, "smoke"); err != nil {
			return err
		}
		restartDone, err = c.WaitRolloutComplete(ctx, ns, "smoke", 2*time.Minute)
		return err
	})
	t.Logf("rollout complete %.3f s after the patch", float64(restartDone-restartSent)/1e9)

	// A bad image: the rollout wait says so at once.
	start := time.Now()
	if _, err := c.SetImage(ctx, ns, "smoke", "app", registry+"/shutdownlab/none:1"); err != nil {
		t.Fatal(err)
	}
	_, err = c.WaitRolloutComplete(ctx, ns, "smoke", 2*time.Minute)
	t.Logf("bad image after %s: %v", time.Since(start).Round(time.Millisecond), err)
	if pse := new(PodStartError); !errors.As(err, &pse) || !strings.Contains(pse.Message, "none:1") {
		t.Errorf("bad image: %v", err)
	}

	k = rec.Stop(2 * time.Second)
	if k.WatchError != "" {
		t.Errorf("watch error: %s", k.WatchError)
	}
	var vp *record.KubePod
	for i := range k.Pods {
		p := &k.Pods[i]
		t.Logf("pod %s %s: ready %+.3f, deletion seen %+.3f (server %+.0f, grace %v), not ready %+.3f, terminated %+.3f (exit %v %s, finished %+.0f), gone %+.3f",
			p.Name, p.TemplateHash, rel(p.ReadyNs, sent), rel(p.DeletionSeenNs, sent), rel(p.DeletionNs, sent), deref(p.GraceS),
			rel(p.NotReadyNs, sent), rel(p.TerminatedNs, sent), deref(p.ExitCode), p.Reason, rel(p.FinishedAtNs, sent), rel(p.GoneNs, sent))
		if p.Name == victim {
			vp = p
		}
	}
	for _, e := range k.Endpoints {
		t.Logf("endpoint %+.3f %s %s ready %v serving %v terminating %v removed %v", rel(e.ObservedNs, sent), e.Pod, e.IP,
			deref(e.Ready), deref(e.Serving), deref(e.Terminating), e.Removed)
	}
	t.Logf("%d events, %d pods, %d endpoint changes", len(k.Events), len(k.Pods), len(k.Endpoints))
	if vp == nil || vp.DeletionSeenNs < sent || vp.GoneNs == 0 || vp.ExitCode == nil || *vp.ExitCode != 0 {
		t.Errorf("the deleted pod: %s", js(vp))
	}
	sawTerminating, sawRemoved := false, false
	for _, e := range k.Endpoints {
		if e.Pod == victim && e.Terminating != nil && *e.Terminating {
			sawTerminating = true
		}
		if e.Pod == victim && e.Removed {
			sawRemoved = true
		}
	}
	if !sawTerminating || !sawRemoved {
		t.Errorf("the deleted pod's endpoint: terminating %v, removed %v", sawTerminating, sawRemoved)
	}
}

func rel(ns, base int64) float64 {
	if ns == 0 {
		return 0
	}
	return float64(ns-base) / 1e9
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// pushSmokeImage builds testdata/smokeapp statically and pushes it, as a
// one-layer image, to registry over its HTTP API (no Docker needed).
func pushSmokeImage(t *testing.T, ctx context.Context, registry string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "app")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./testdata/smokeapp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build smokeapp: %v\n%s", err, out)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	tw.WriteHeader(&tar.Header{Name: "app", Mode: 0o755, Size: int64(len(exe)), ModTime: time.Unix(0, 0)})
	tw.Write(exe)
	tw.Close()
	var layer bytes.Buffer
	zw := gzip.NewWriter(&layer)
	zw.Write(tarball.Bytes())
	zw.Close()
	config, _ := json.Marshal(map[string]any{
		"architecture": "amd64", "os": "linux",
		"config": map[string]any{"Entrypoint": []string{"/app"}},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{digest(tarball.Bytes())}},
	})
	repo := "shutdownlab/kubeapi-smoke"
	base := "http://" + registry + "/v2/" + repo
	for _, blob := range [][]byte{layer.Bytes(), config} {
		loc := httpDo(t, ctx, "POST", base+"/blobs/uploads/", "", nil).Header.Get("Location")
		sep := "?"
		if strings.Contains(loc, "?") {
			sep = "&"
		}
		if !strings.HasPrefix(loc, "http") {
			loc = "http://" + registry + loc
		}
		httpDo(t, ctx, "PUT", loc+sep+"digest="+digest(blob), "application/octet-stream", blob)
	}
	manifest, _ := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.docker.distribution.manifest.v2+json",
		"config":        map[string]any{"mediaType": "application/vnd.docker.container.image.v1+json", "size": len(config), "digest": digest(config)},
		"layers": []map[string]any{{"mediaType": "application/vnd.docker.image.rootfs.diff.tar.gzip",
			"size": layer.Len(), "digest": digest(layer.Bytes())}},
	})
	httpDo(t, ctx, "PUT", base+"/manifests/1", "application/vnd.docker.distribution.manifest.v2+json", manifest)
	return registry + "/" + repo + ":1"
}

func digest(b []byte) string { return fmt.Sprintf("sha256:%x", sha256.Sum256(b)) }

func httpDo(t *testing.T, ctx context.Context, method, url, ctype string, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s %s", method, url, resp.Status, msg)
	}
	return resp
}
