package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/kubetest"
)

// TestCheckManifestKube runs `check --manifest --kubeconfig` on a real
// cluster (make test-kube) with the project's Go target as the image,
// pushed through the test registry, 20 ms requests: a 3 s preStop sleep
// rolls safely (exit 0); a grace period shorter than the 3 s requests'
// drain ends in SIGKILL (exit 1); an image not on this engine and no
// registry is refused at once (exit 2). Every verdict says which cluster
// context it measured on, not the emulation. A namespace no run owns is
// untouched and no run namespace is left.
func TestCheckManifestKube(t *testing.T) {
	kubeconfig := kubetest.Kubeconfig(t)
	eng := dockertest.RequireDocker(t)
	kc := kubetest.Connect(t, kubeconfig)
	by := kubetest.NewBystander(t, kc)
	t.Chdir("../..")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	target, _, err := images.BuildProject(ctx, eng, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	cluster := []string{"--kubeconfig", kubeconfig, "--registry", kubetest.Registry()}
	for _, tc := range []struct {
		name, manifest, image string
		args                  []string
		code                  int
		want                  []string
		within                time.Duration
	}{
		{"preStop sleep 3s", "prestop-sleep", target, []string{"--path", "/slow?ms=20"}, exitOK,
			[]string{"measured on cluster context", "rollout: SAFE"}, 6 * time.Minute},
		{"grace shorter than the drain", "grace-too-short", target, []string{"--path", "/slow?ms=3000", "--search-signals", "none"}, exitFailed,
			[]string{"measured on cluster context", "SIGKILL"}, 6 * time.Minute},
		// An image on neither this engine nor a registry goes to the
		// cluster as named; its pod cannot pull it and says so at once
		// (exit 2 with the pod's own event, never a timeout).
		{"an image the cluster cannot pull", "prestop-sleep", "shutdownlab-test/no-such-image:absent", []string{"--registry", ""}, exitInvalid,
			[]string{"the cluster pulls it as named", "ErrImagePull", "Failed to pull image", "no-such-image:absent", "could not tell: no valid run"}, 2 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"check", "--manifest", filepath.Join("examples/kubernetes/manifests", tc.manifest+".yaml"),
				"--image", tc.image, "--out", out}, cluster...)
			args = append(args, tc.args...)
			start := time.Now()
			code, stdout, stderr := runMain(t, ctx, args...)
			took := time.Since(start)
			t.Logf("check --manifest %s on the cluster: exit %d in %s\n%s\nstderr:\n%s", tc.manifest, code, took.Round(time.Second), stdout, stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if took > tc.within {
				t.Errorf("took %s, want within %s", took.Round(time.Second), tc.within)
			}
			text := stdout + stderr
			if files, _ := filepath.Glob(filepath.Join(out, "*", "verdict.txt")); len(files) == 1 {
				b, _ := os.ReadFile(files[0])
				text += string(b)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q", w)
				}
			}
		})
	}
	by.Untouched(t)
	if left := kubetest.OwnRunNamespaces(t, kc); len(left) > 0 {
		t.Errorf("run namespaces left: %v", left)
	}
}

// TestCleanKube: `clean --kubeconfig` removes a run namespace whose owner
// process is gone (labelled as a run's, owner a pid that does not exist
// on this host) and leaves a namespace no run owns, and its objects,
// untouched.
func TestCleanKube(t *testing.T) {
	kubeconfig := kubetest.Kubeconfig(t)
	dockertest.RequireDocker(t)
	kc := kubetest.Connect(t, kubeconfig)
	by := kubetest.NewBystander(t, kc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	host, _ := os.Hostname()
	orphan := fmt.Sprintf("shutdownlab-orphan-%d", time.Now().UnixNano()%1e9)
	labels := map[string]string{docker.LabelManaged: "1", "shutdownlab.run": orphan, docker.LabelSession: "orphan",
		docker.LabelOwnerHost: host, docker.LabelOwnerPID: "999999999", docker.LabelOwnerStart: "1"}
	if err := kc.CreateNamespace(ctx, orphan, labels); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kc.DeleteNamespace(context.Background(), orphan, 2*time.Minute) })
	code, stdout, stderr := runMain(t, ctx, "clean", "--kubeconfig", kubeconfig)
	t.Logf("clean: exit %d\n%s%s", code, stdout, stderr)
	if code != exitOK {
		t.Errorf("clean exit %d", code)
	}
	if !strings.Contains(stdout, orphan) {
		t.Errorf("clean did not name the orphan namespace %s", orphan)
	}
	for _, ns := range kubetest.RunNamespaces(t, kc, orphan) {
		t.Errorf("orphan namespace %s still there", ns)
	}
	by.Untouched(t)
}
