package images_test

import (
	"bytes"
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
)

// stockSettle is how long the test waits after a fixture's start-up line
// before it signals. HAProxy 2.6's master logs "Loading success." a moment
// before it is ready for signals: a SIGUSR1 or SIGTERM sent as soon as that
// line was read (polled every 50 ms) was lost in 7 of 30 idle tries here (6
// of 15 SIGUSR1, 1 of 15 SIGTERM): the master went on in epoll_wait with
// nothing pending or blocked and never stopped. After 100 ms, 300 ms or 1 s
// of settling, none of 60 was lost.
const stockSettle = 200 * time.Millisecond

// stockStarted is what each fixture logs (stdout or stderr) once it serves,
// and stockCheck the command that checks its configuration inside the
// image (libraries, modules, users and paths all resolve there).
var (
	stockStarted = map[string]string{
		"nginx":    "start worker process",
		"apache":   "resuming normal operations",
		"haproxy":  "Loading success.",
		"lighttpd": "server started",
		"caddy":    "serving initial configuration",
	}
	stockCheck = map[string]struct {
		entrypoint, cmd []string
		ok              string
	}{
		"nginx":    {nil, []string{"-t"}, "test is successful"},
		"apache":   {nil, []string{"-t"}, "Syntax OK"},
		"haproxy":  {nil, []string{"-c"}, "Configuration file is valid"},
		"lighttpd": {nil, []string{"-tt"}, ""},
		"caddy":    {[]string{"/app", "validate", "--config", images.CaddyFixtureConfigPath}, nil, "Valid configuration"},
	}
)

// TestStockFixturesRun builds each real fixture image, checks its
// configuration inside the image, then starts it twice: once stopped with
// its documented graceful signal, once with its documented fast one. Both
// must end the server by itself with the table's exit code. No traffic
// (internal/runner's TestStockZoo sends that).
func TestStockFixturesRun(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	for _, s := range images.StockServers() {
		t.Run(s.Name, func(t *testing.T) {
			requireStock(t, s)
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
			defer cancel()
			var log bytes.Buffer
			t0 := time.Now()
			ref, _, err := images.StockFixture(ctx, eng, s.Name, &log)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s in %s: %s", ref, time.Since(t0).Round(time.Millisecond), strings.TrimSpace(log.String()))
			run := func(name string, entrypoint, cmd []string) *docker.Container {
				c, err := eng.Run(ctx, docker.ContainerSpec{Name: eng.Session() + "-" + s.Name + "-" + name, Image: ref,
					Entrypoint: entrypoint, Cmd: cmd})
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
			chk := stockCheck[s.Name]
			c := run("check", chk.entrypoint, chk.cmd)
			exited, st, err := eng.WaitExit(ctx, c.ID, 30*time.Second)
			out := allLogs(ctx, eng, c.ID)
			if err != nil || !exited || st.ExitCode != 0 || !strings.Contains(out, chk.ok) {
				t.Fatalf("config check in the image: exited=%v code=%d err=%v\n%s", exited, st.ExitCode, err, out)
			}
			for _, stop := range []struct {
				sig  string
				code int
			}{{s.Stop.Graceful, s.Stop.GracefulExit}, {s.Stop.Fast, s.Stop.FastExitIdle}} {
				c := run(strings.ToLower(stop.sig), nil, nil)
				waitLogs(ctx, t, eng, c.ID, stockStarted[s.Name], 30*time.Second)
				time.Sleep(stockSettle)
				sent := time.Now()
				before, _ := eng.Inspect(ctx, c.ID)
				if err := eng.Kill(ctx, c.ID, stop.sig); err != nil {
					t.Fatal(err)
				}
				exited, st, err := eng.WaitExit(ctx, c.ID, 20*time.Second)
				if err != nil || !exited || st.ExitCode != stop.code {
					t.Errorf("%s: exited=%v code=%d err=%v; want exit %d by itself; PID 1 now: %s; log:\n%s",
						stop.sig, exited, st.ExitCode, err, stop.code, procDiag(before.Pid), allLogs(ctx, eng, c.ID))
					continue
				}
				t.Logf("%s (idle): exit %d within %s", stop.sig, st.ExitCode, time.Since(sent).Round(time.Millisecond))
			}
		})
	}
}

// allLogs is a container's stdout and stderr.
func allLogs(ctx context.Context, eng *docker.Engine, id string) string {
	stdout, stderr, _ := eng.LogsAll(ctx, id)
	return string(stdout) + string(stderr)
}

// waitLogs polls a container's stdout and stderr until they hold substr,
// for at most timeout.
func waitLogs(ctx context.Context, t *testing.T, eng *docker.Engine, id, substr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out := allLogs(ctx, eng, id)
		if strings.Contains(out, substr) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the logs within %s; logs:\n%s", substr, timeout, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHostFilesSharedLibraryOnce: libraries shared by two binaries (libc,
// the loader) appear once; a missing binary is an error naming it.
func TestHostFilesSharedLibraryOnce(t *testing.T) {
	requireStock(t, mustLookup(t, "nginx"))
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

// procDiag describes a host process (a container's PID 1 as the host
// numbers it) for a failure message: its state, signal masks (blocked,
// ignored, caught, pending) and kernel wait channel, and its threads'.
func procDiag(pid int) string {
	if pid <= 0 {
		return "no pid"
	}
	var b strings.Builder
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	for _, task := range tasks {
		status, err := os.ReadFile(task + "/status")
		if err != nil {
			continue
		}
		wchan, _ := os.ReadFile(task + "/wchan")
		fmt.Fprintf(&b, "\n  %s wchan=%s", filepath.Base(task), wchan)
		for _, line := range strings.Split(string(status), "\n") {
			for _, k := range []string{"State:", "SigPnd:", "ShdPnd:", "SigBlk:", "SigIgn:", "SigCgt:"} {
				if strings.HasPrefix(line, k) {
					fmt.Fprintf(&b, " %s", strings.Join(strings.Fields(line), "="))
				}
			}
		}
	}
	return b.String()
}
