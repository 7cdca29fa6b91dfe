package images_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/images"
)

func TestBuildRunCopy(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	var log bytes.Buffer
	spec := images.Spec{
		Name:    dockertest.HelloImageName,
		Package: dockertest.HelloPackage,
		Args:    []string{"fixed-arg"},
		// A label unique to this run forces a fresh build.
		Labels: map[string]string{"shutdownlab.test": eng.Session()},
		Log:    &log,
	}
	ref, built, err := images.Build(ctx, eng, spec)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	t.Cleanup(func() {
		_, _ = eng.Client().ImageRemove(context.Background(), ref, client.ImageRemoveOptions{Force: true, PruneChildren: true})
	})
	if !built {
		t.Errorf("first Build: built=false, want true")
	}
	if !strings.HasPrefix(ref, spec.Name+":") || len(ref) != len(spec.Name)+1+16 {
		t.Errorf("ref %q: want %s:<16 hex>", ref, spec.Name)
	}
	ref2, built2, err := images.Build(ctx, eng, spec)
	if err != nil {
		t.Fatalf("second Build: %v", err)
	}
	if built2 || ref2 != ref {
		t.Errorf("second Build = %q built=%v, want %q built=false", ref2, built2, ref)
	}
	t.Logf("build log:\n%s", log.String())
	if !strings.Contains(log.String(), "using cached "+ref) {
		t.Errorf("log lacks the cache line: %q", log.String())
	}

	// Run as an unprivileged user: writing /data proves its 1777 mode.
	t0 := time.Now()
	c, err := eng.Run(ctx, docker.ContainerSpec{
		Name:  eng.Session() + "-hello",
		Image: ref,
		Cmd:   []string{"extra-arg"},
		User:  "65534:65534",
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Cleanup(func() { _ = eng.Remove(context.Background(), c.ID) })
	if err := eng.WaitLog(ctx, c.ID, `"event":"up"`, 20*time.Second); err != nil {
		t.Fatalf("WaitLog: %v", err)
	}
	t.Logf("run -> up line: %s", time.Since(t0).Round(time.Millisecond))

	stop := 2
	if err := eng.Stop(ctx, c.ID, &stop); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	st, err := eng.Inspect(ctx, c.ID)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	if st.Running || st.ExitCode != 0 {
		t.Errorf("after Stop: running=%v exit=%d, want stopped with 0 (handler)", st.Running, st.ExitCode)
	}
	data, err := eng.CopyFileFrom(ctx, c.ID, "/data/hello.txt")
	if err != nil {
		t.Fatalf("CopyFileFrom: %v", err)
	}
	if !strings.Contains(string(data), "args=fixed-arg,extra-arg") {
		t.Errorf("data file = %q, want the entrypoint args fixed-arg,extra-arg", data)
	}
	if _, err := eng.CopyFileFrom(ctx, c.ID, "/data/missing.txt"); !errors.Is(err, docker.ErrNotFound) {
		t.Errorf("CopyFileFrom missing file: err=%v, want ErrNotFound", err)
	}
	if _, err := eng.CopyFileFrom(ctx, "no-such-container-"+eng.Session(), "/data/hello.txt"); err == nil {
		t.Errorf("CopyFileFrom on a missing container: no error")
	}
	if err := eng.Remove(ctx, c.ID); err != nil {
		t.Fatalf("Remove: %v", err)
	}
}

func TestGoBuildError(t *testing.T) {
	root, err := images.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = images.GoBuild(ctx, root, "./internal/images/testdata/nonexistent", "amd64")
	if err == nil || !strings.Contains(err.Error(), "go build") {
		t.Fatalf("GoBuild of a missing package: err=%v", err)
	}
}
