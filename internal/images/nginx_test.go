package images_test

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/images"
)

// requireNginx fails without Debian's nginx and echo module on this host
// (the fixture is built from them), unless SHUTDOWNLAB_SKIP_NGINX=1.
func requireNginx(t *testing.T) {
	t.Helper()
	for _, p := range []string{images.NginxBinary, images.NginxEchoModule} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("SHUTDOWNLAB_SKIP_NGINX") == "1" {
				t.Skipf("%s missing and SHUTDOWNLAB_SKIP_NGINX=1", p)
			}
			t.Fatalf("the nginx fixture needs %s (install: %s): %v", p, images.NginxInstall, err)
		}
	}
}

// contextFiles returns the Dockerfile and the rootfs.tar of a build context.
func contextFiles(t *testing.T, ctxTar []byte) (dockerfile string, rootfs []byte) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(ctxTar))
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		b, _ := io.ReadAll(tr)
		switch h.Name {
		case "Dockerfile":
			dockerfile = string(b)
		case "rootfs.tar":
			rootfs = b
		}
	}
	if dockerfile == "" || rootfs == nil {
		t.Fatalf("build context lacks Dockerfile or rootfs.tar")
	}
	return dockerfile, rootfs
}

// TestNginxFixtureFiles: the fixture holds nginx, the echo module, their
// libraries and loader, the config and writable directories; the image
// keeps Docker's default stop signal; an existing tag is reused.
func TestNginxFixtureFiles(t *testing.T) {
	requireNginx(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := &fakeEngine{}
	var log bytes.Buffer
	ref, ver, err := images.NginxFixture(ctx, f, &log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ref, images.NginxImageName+":") || f.tag != ref || !strings.HasPrefix(ver, "nginx/") {
		t.Fatalf("ref %q (built %q), version %q", ref, f.tag, ver)
	}
	dockerfile, rootfs := contextFiles(t, f.ctxTar)
	if !strings.Contains(dockerfile, `ENTRYPOINT ["/usr/sbin/nginx","-c","/etc/nginx/nginx.conf"]`) || strings.Contains(dockerfile, "STOPSIGNAL") {
		t.Errorf("Dockerfile:\n%s", dockerfile)
	}
	names := tarNames(t, rootfs)
	for _, p := range []string{"usr/sbin/nginx", "usr/lib/nginx/modules/ngx_http_echo_module.so", "etc/nginx/nginx.conf",
		"etc/passwd", "etc/group", "lib64/ld-linux-x86-64.so.2", "lib/x86_64-linux-gnu/libc.so.6",
		"lib/x86_64-linux-gnu/libpcre2-8.so.0", "var/lib/nginx"} {
		if names[p] == nil {
			t.Errorf("rootfs lacks %s", p)
		}
	}
	if h := names["tmp"]; h == nil || h.Mode&0o7777 != 0o1777 {
		t.Errorf("rootfs tmp: %+v, want a 1777 directory", h)
	}
	if h := names["usr/sbin/nginx"]; h != nil && h.Mode&0o111 == 0 {
		t.Errorf("usr/sbin/nginx mode %o, want executable", h.Mode)
	}
	t.Logf("%s: %d rootfs entries, %.1f MB; %s", ref, len(names), float64(len(rootfs))/1e6, strings.TrimSpace(log.String()))

	f2 := &fakeEngine{exists: true}
	ref2, _, err := images.NginxFixture(ctx, f2, nil)
	if err != nil || ref2 != ref || f2.tag != "" {
		t.Errorf("cached call = %q, %v (built %q), want %q and no build", ref2, err, f2.tag, ref)
	}
}

// TestNginxConfValid: the host's nginx accepts NginxConf (`nginx -t`),
// echo module and map included.
func TestNginxConfValid(t *testing.T) {
	requireNginx(t)
	conf := filepath.Join(t.TempDir(), "nginx.conf")
	if err := os.WriteFile(conf, []byte(images.NginxConf), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, images.NginxBinary, "-t", "-c", conf).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "test is successful") {
		t.Errorf("nginx -t -c %s: %v\n%s", conf, err, out)
	}
}

// TestHostFilesSharedLibraryOnce: libraries shared by two binaries (libc,
// the loader) appear once; a missing binary is an error naming it.
func TestHostFilesSharedLibraryOnce(t *testing.T) {
	requireNginx(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	files, err := images.HostFiles(ctx, []images.HostBinary{
		{Host: images.NginxBinary, Path: "/usr/sbin/nginx"},
		{Host: images.NginxEchoModule, Mode: 0o644},
	})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, f := range files {
		count[f.Path]++
	}
	for p, n := range count {
		if n != 1 {
			t.Errorf("%s appears %d times", p, n)
		}
	}
	if count["usr/lib/nginx/modules/ngx_http_echo_module.so"] != 1 || count["lib/x86_64-linux-gnu/libc.so.6"] != 1 {
		t.Errorf("files %v lack the module at its host path or libc", count)
	}
	_, err = images.HostFiles(ctx, []images.HostBinary{{Host: "/nonexistent/prog"}})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/prog") {
		t.Errorf("missing binary: err %v, want one naming /nonexistent/prog", err)
	}
}

// TestNginxFixtureRuns builds the real image, checks its config inside the
// image (`nginx -t`: libraries, module, user nobody all resolve), then
// starts it and stops it with SIGQUIT: nginx logs its graceful shutdown
// and exits 0. No traffic (the runner's tests send that).
func TestNginxFixtureRuns(t *testing.T) {
	requireNginx(t)
	eng := dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var log bytes.Buffer
	t0 := time.Now()
	ref, ver, err := images.NginxFixture(ctx, eng, &log)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s (%s) in %s: %s", ref, ver, time.Since(t0).Round(time.Millisecond), strings.TrimSpace(log.String()))
	run := func(name string, cmd []string) *docker.Container {
		c, err := eng.Run(ctx, docker.ContainerSpec{Name: eng.Session() + "-" + name, Image: ref, Cmd: cmd})
		if err != nil {
			t.Fatalf("run %s: %v", name, err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := eng.Remove(ctx, c.ID); err != nil {
				t.Errorf("remove %s: %v", c.Name, err)
			}
		})
		return c
	}
	check := run("t", []string{"-t"})
	exited, st, err := eng.WaitExit(ctx, check.ID, 30*time.Second)
	_, stderr, _ := eng.LogsAll(ctx, check.ID)
	if err != nil || !exited || st.ExitCode != 0 || !bytes.Contains(stderr, []byte("test is successful")) {
		t.Fatalf("nginx -t in the image: exited=%v code=%d err=%v\n%s", exited, st.ExitCode, err, stderr)
	}
	srv := run("quit", nil)
	waitStderr(ctx, t, eng, srv.ID, "start worker process", 30*time.Second)
	if err := eng.Kill(ctx, srv.ID, "SIGQUIT"); err != nil {
		t.Fatal(err)
	}
	exited, st, err = eng.WaitExit(ctx, srv.ID, 15*time.Second)
	_, stderr, _ = eng.LogsAll(ctx, srv.ID)
	if err != nil || !exited || st.ExitCode != 0 || !bytes.Contains(stderr, []byte("gracefully shutting down")) {
		t.Errorf("SIGQUIT: exited=%v code=%d err=%v; want a graceful exit 0; log:\n%s", exited, st.ExitCode, err, stderr)
	}
}

// waitStderr polls a container's stderr (nginx's error_log; WaitLog
// follows stdout only) until it holds substr, for at most timeout.
func waitStderr(ctx context.Context, t *testing.T, eng *docker.Engine, id, substr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		_, stderr, err := eng.LogsAll(ctx, id)
		if err == nil && bytes.Contains(stderr, []byte(substr)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q on stderr within %s (err %v); stderr:\n%s", substr, timeout, err, stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
