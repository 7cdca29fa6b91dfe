package images_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/images"
)

func TestLddPaths(t *testing.T) {
	out := "\tlinux-vdso.so.1 (0x00007ffd)\n" +
		"\tlibdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f74)\n" +
		"\tlibfoo.so.1 => not found\n" +
		"\t/lib64/ld-linux-x86-64.so.2 (0x00007f74)\n"
	got := images.LddPaths(out)
	want := []string{"/lib/x86_64-linux-gnu/libdl.so.2", "/lib64/ld-linux-x86-64.so.2"}
	if !slices.Equal(got, want) {
		t.Errorf("LddPaths = %q, want %q", got, want)
	}
	if got := images.LddPaths("\tnot a dynamic executable\n"); len(got) != 0 {
		t.Errorf("static binary: LddPaths = %q, want none", got)
	}
}

// fakeEngine records builds; it has no Client method, so BuildNodeTarget
// takes the offline path.
type fakeEngine struct {
	exists bool
	ctxTar []byte
	tag    string
}

func (f *fakeEngine) Info(context.Context) (docker.Info, error) {
	return docker.Info{Arch: docker.GoArch("")}, nil
}
func (f *fakeEngine) ImageExists(context.Context, string) (bool, error) { return f.exists, nil }
func (f *fakeEngine) BuildImage(_ context.Context, r io.Reader, tag string, _ map[string]string, _ io.Writer) error {
	f.tag = tag
	var err error
	f.ctxTar, err = io.ReadAll(r)
	return err
}

// requireNode fails without a host node (the offline path needs it);
// SHUTDOWNLAB_SKIP_NODE=1 (make test-unit) skips.
func requireNode(t *testing.T) {
	t.Helper()
	if os.Getenv("SHUTDOWNLAB_SKIP_NODE") == "1" {
		t.Skip("SHUTDOWNLAB_SKIP_NODE=1: the unit tier runs no host node (make test runs these)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("the offline Node image needs node on this host: %v", err)
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// tarNames lists a tar's entries as "name" or "name -> link".
func tarNames(t *testing.T, b []byte) map[string]*tar.Header {
	t.Helper()
	out := map[string]*tar.Header{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(h.Name, "/")] = h
	}
}

func TestBuildNodeTargetOfflineFiles(t *testing.T) {
	requireNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := &fakeEngine{}
	var log bytes.Buffer
	ref, ver, err := images.BuildNodeTarget(ctx, f, moduleRoot(t), &log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ref, images.NodeImageName+":host-") || f.tag != ref || !strings.HasPrefix(ver, "v") {
		t.Fatalf("ref %q (built %q), version %q", ref, f.tag, ver)
	}
	outer := tarNames(t, f.ctxTar)
	if outer["Dockerfile"] == nil || outer["rootfs.tar"] == nil {
		t.Fatalf("context lacks Dockerfile or rootfs.tar: %v", outer)
	}
	var rootfs, dockerfile []byte
	tr := tar.NewReader(bytes.NewReader(f.ctxTar))
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		b, _ := io.ReadAll(tr)
		switch h.Name {
		case "Dockerfile":
			dockerfile = b
		case "rootfs.tar":
			rootfs = b
		}
	}
	if !strings.Contains(string(dockerfile), `ENTRYPOINT ["/usr/bin/node","/app/server.js"]`) {
		t.Errorf("Dockerfile:\n%s", dockerfile)
	}
	names := tarNames(t, rootfs)
	for _, p := range []string{"usr/bin/node", "app/server.js", "app/events.js", "app/cluster.js",
		"app/node_modules/ws/index.js", "app/node_modules/ws/package.json", "app/node_modules/ws/lib/websocket-server.js",
		"lib64/ld-linux-x86-64.so.2", "etc/passwd"} {
		if names[p] == nil {
			t.Errorf("rootfs lacks %s", p)
		}
	}
	for _, d := range []string{"data", "tmp"} {
		if h := names[d]; h == nil || h.Mode&0o7777 != 0o1777 {
			t.Errorf("rootfs %s: %+v, want a 1777 directory", d, h)
		}
	}
	t.Logf("%s: %d rootfs entries, %.1f MB; %s", ref, len(names), float64(len(rootfs))/1e6, strings.TrimSpace(log.String()))

	// Same inputs, tag present: no build, same ref.
	f2 := &fakeEngine{exists: true}
	ref2, _, err := images.BuildNodeTarget(ctx, f2, moduleRoot(t), nil)
	if err != nil || ref2 != ref || f2.tag != "" {
		t.Errorf("cached call = %q, %v (built %q), want %q and no build", ref2, err, f2.tag, ref)
	}
}

// copyNodeApp copies the Node target's files into a fresh module
// directory and returns it.
func copyNodeApp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range images.NodeAppFiles {
		b, err := os.ReadFile(filepath.Join(moduleRoot(t), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The tag is a hash of every file the image holds: changing any of the
// Node target's files gives a new tag.
func TestBuildNodeTargetHashesAppFiles(t *testing.T) {
	requireNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := copyNodeApp(t)
	ref := func() string {
		r, _, err := images.BuildNodeTargetOffline(ctx, &fakeEngine{exists: true}, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	seen := map[string]string{ref(): "unchanged"}
	for _, name := range images.NodeAppFiles {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString("\n// changed\n")
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		r := ref()
		if prev, dup := seen[r]; dup {
			t.Errorf("changing %s kept the tag %s (%s)", name, r, prev)
		}
		seen[r] = name
	}
}

// Without node-ws on the host the image cannot be built; the error names
// the directory and the fix.
func TestNodeAppImageFilesWithoutWS(t *testing.T) {
	_, err := images.NodeAppImageFiles(moduleRoot(t), "/nonexistent/nodejs/ws")
	if err == nil {
		t.Fatal("no error without the ws library")
	}
	for _, want := range []string{"/nonexistent/nodejs/ws", "apt-get install node-ws"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if os.Getenv("SHUTDOWNLAB_SKIP_HOST_PACKAGES") == "1" {
		if _, serr := os.Stat(images.NodeWSDir); serr != nil {
			t.Skipf("this host lacks node-ws (SHUTDOWNLAB_SKIP_HOST_PACKAGES=1: make test runs the rest)")
		}
	}
	files, err := images.NodeAppImageFiles("", images.NodeWSDir)
	if err != nil {
		if _, serr := os.Stat(images.NodeWSDir); serr != nil {
			t.Fatalf("%v (this host lacks node-ws: apt-get install node-ws)", err)
		}
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Path)
	}
	for _, want := range []string{"app/server.js", "app/events.js", "app/cluster.js", "app/node_modules/ws/index.js"} {
		if !slices.Contains(names, want) {
			t.Errorf("embedded image files %v lack %s", names, want)
		}
	}
}

// nodeImage builds (or reuses) the offline Node target image.
func nodeImage(t *testing.T, eng *docker.Engine) string {
	t.Helper()
	requireNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for i := range 2 {
		var log bytes.Buffer
		t0 := time.Now()
		ref, ver, err := images.BuildNodeTargetOffline(ctx, eng, moduleRoot(t), &log)
		if err != nil {
			t.Fatalf("BuildNodeTargetOffline: %v", err)
		}
		t.Logf("call %d: %s (node %s) in %s: %s", i+1, ref, ver, time.Since(t0).Round(time.Millisecond), strings.TrimSpace(log.String()))
		if i == 1 {
			if !strings.Contains(log.String(), "using cached "+ref) {
				t.Errorf("second call rebuilt: %q", log.String())
			}
			return ref
		}
	}
	return ""
}

// runNode starts a Node target container and removes it at cleanup.
func runNode(t *testing.T, eng *docker.Engine, spec docker.ContainerSpec) *docker.Container {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := eng.Run(ctx, spec)
	if err != nil {
		t.Fatalf("run %s: %v", spec.Name, err)
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

// TestNodeTargetP1 is published P1: MODE=none, Node as PID 1 (no --init),
// docker kill -s TERM: still running 3 s later; only SIGKILL ends it (137).
func TestNodeTargetP1(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	ref := nodeImage(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := runNode(t, eng, docker.ContainerSpec{Name: eng.Session() + "-p1", Image: ref, Env: []string{"MODE=none"}})
	if err := eng.WaitLog(ctx, c.ID, `"event":"up"`, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := eng.Kill(ctx, c.ID, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	exited, st, err := eng.WaitExit(ctx, c.ID, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if exited {
		t.Fatalf("P1: Node as PID 1 in none mode exited on SIGTERM (code %d); published: still running 3 s later", st.ExitCode)
	}
	t.Logf("P1: still running 3 s after docker kill -s TERM (published: still running, 3/3)")
	if err := eng.Kill(ctx, c.ID, ""); err != nil {
		t.Fatal(err)
	}
	exited, st, err = eng.WaitExit(ctx, c.ID, 10*time.Second)
	if err != nil || !exited || st.ExitCode != 137 {
		t.Errorf("after SIGKILL: exited=%v code=%d err=%v, want exit 137", exited, st.ExitCode, err)
	}
}

// clientScript POSTs /write?ms=1500 to the target, prints "inflight=1" once
// /readyz counts it, then the response; exit 0 on 200.
const clientScript = `
const http = require('http');
const h = {host: 'target', port: 8080};
const req = http.request({...h, method: 'POST', path: '/write?ms=1500', headers: {'X-Request-Id': process.env.REQ_ID}}, (res) => {
  let b = ''; res.on('data', (d) => b += d);
  res.on('end', () => { console.log('status=' + res.statusCode + ' connection=' + res.headers.connection + ' body=' + b.trim()); process.exit(res.statusCode === 200 ? 0 : 1); });
});
req.on('error', (e) => { console.log('error=' + e.message); process.exit(1); });
let polls = 0;
const poll = () => http.get({...h, path: '/readyz', agent: false}, (r) => {
  let b = ''; r.on('data', (d) => b += d);
  r.on('end', () => { if (JSON.parse(b).inflight >= 1) console.log('inflight=1'); else if (++polls < 200) setTimeout(poll, 20); });
}).on('error', (e) => console.log('poll error=' + e.message));
req.on('finish', poll);
req.end();
`

// TestNodeTargetFullDrain: MODE=full with --init, SIGTERM while a POST is
// in flight: the POST gets 200, the app logs "drained" and exits 0, and the
// ledger holds the request id. Traffic stays on the test's own network.
func TestNodeTargetFullDrain(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	ref := nodeImage(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	netName := eng.Session() + "-net"
	if _, err := eng.CreateNetwork(ctx, netName, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := eng.RemoveNetwork(ctx, netName); err != nil {
			t.Errorf("remove network: %v", err)
		}
	})
	target := runNode(t, eng, docker.ContainerSpec{
		Name: eng.Session() + "-target", Image: ref, Network: netName, Aliases: []string{"target"}, Init: true,
		Env: []string{"MODE=full", "PRESTOP_MS=200", "DRAIN_MS=10000"},
	})
	if err := eng.WaitLog(ctx, target.ID, `"event":"up"`, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	const id = "node-full-drain-1"
	client := runNode(t, eng, docker.ContainerSpec{
		Name: eng.Session() + "-client", Image: ref, Network: netName,
		Entrypoint: []string{"/usr/bin/node", "-e", clientScript}, Env: []string{"REQ_ID=" + id},
	})
	if err := eng.WaitLog(ctx, client.ID, "inflight=1", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := eng.Kill(ctx, target.ID, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	exited, st, err := eng.WaitExit(ctx, target.ID, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	out, _, _ := eng.LogsAll(ctx, target.ID)
	t.Logf("target exited=%v code=%d %s after SIGTERM; log:\n%s", exited, st.ExitCode, time.Since(t0).Round(time.Millisecond), out)
	if !exited || st.ExitCode != 0 {
		t.Fatalf("target: exited=%v code=%d, want exit 0", exited, st.ExitCode)
	}
	for _, ev := range []string{`"signal":"SIGTERM"`, `"ready_false"`, `"listener_closed"`, `"drained"`, `"event":"exit","code":0`} {
		if !bytes.Contains(out, []byte(ev)) {
			t.Errorf("target log lacks %s", ev)
		}
	}
	cexited, cst, err := eng.WaitExit(ctx, client.ID, 10*time.Second)
	cout, _, _ := eng.LogsAll(ctx, client.ID)
	if err != nil || !cexited || cst.ExitCode != 0 || !bytes.Contains(cout, []byte("status=200 connection=close")) {
		t.Errorf("client: exited=%v code=%d err=%v log %q, want 200 with Connection: close", cexited, cst.ExitCode, err, cout)
	}
	ledger, err := eng.CopyFileFrom(ctx, target.ID, "/data/ledger.log")
	if err != nil {
		t.Fatal(err)
	}
	if string(ledger) != id+"\n" {
		t.Errorf("ledger = %q, want %q", ledger, id+"\n")
	}
}

// TestNodeTargetFrom builds the FROM-base path (the one an official node:*
// image takes) on top of the offline image, which has node on the default
// PATH, and checks that the result runs and drains.
func TestNodeTargetFrom(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	base := nodeImage(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var ref string
	for i := range 2 {
		var log bytes.Buffer
		r, ver, err := images.BuildNodeTargetFrom(ctx, eng, base, moduleRoot(t), &log)
		if err != nil {
			t.Fatalf("BuildNodeTargetFrom: %v", err)
		}
		t.Logf("call %d: %s", i+1, strings.TrimSpace(log.String()))
		if !strings.HasPrefix(ver, "v") || !strings.HasPrefix(r, images.NodeImageName+":") {
			t.Fatalf("ref %q version %q", r, ver)
		}
		if i == 1 && (r != ref || !strings.Contains(log.String(), "using cached")) {
			t.Errorf("second call: %q, log %q, want cached %q", r, log.String(), ref)
		}
		ref = r
	}
	c := runNode(t, eng, docker.ContainerSpec{Name: eng.Session() + "-from", Image: ref, Env: []string{"MODE=full"}})
	if err := eng.WaitLog(ctx, c.ID, `pid=1 `, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := eng.Kill(ctx, c.ID, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	exited, st, err := eng.WaitExit(ctx, c.ID, 10*time.Second)
	if err != nil || !exited || st.ExitCode != 0 {
		out, _, _ := eng.LogsAll(ctx, c.ID)
		t.Errorf("full mode FROM base: exited=%v code=%d err=%v; log:\n%s", exited, st.ExitCode, err, out)
	}
}

// wsClientScript opens /events on the target with the image's own ws,
// prints "streaming" after three consecutive frames, then the close code
// the server sends.
const wsClientScript = `
const WebSocket = require('/app/node_modules/ws');
const ws = new WebSocket('ws://target:8080/events');
let prev = -1, n = 0;
ws.on('message', (m) => {
  const f = JSON.parse(m);
  if (prev >= 0 && f.seq !== prev + 1) { console.log('gap ' + prev + ' ' + f.seq); process.exit(1); }
  prev = f.seq;
  if (++n === 3) console.log('streaming');
});
ws.on('close', (code) => { console.log('close=' + code); process.exit(code === 1001 ? 0 : 1); });
ws.on('error', (e) => { console.log('error=' + e.message); process.exit(1); });
`

// wsPair runs the Node target (env, --init when init) and a ws client
// container on a fresh network; it returns once the client streams.
func wsPair(t *testing.T, eng *docker.Engine, ref, name string, init bool, env ...string) (target, client *docker.Container) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	netName := eng.Session() + "-" + name
	if _, err := eng.CreateNetwork(ctx, netName, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := eng.RemoveNetwork(ctx, netName); err != nil {
			t.Errorf("remove network: %v", err)
		}
	})
	target = runNode(t, eng, docker.ContainerSpec{
		Name: netName + "-target", Image: ref, Network: netName, Aliases: []string{"target"}, Init: init, Env: env,
	})
	if err := eng.WaitLog(ctx, target.ID, `"event":"up"`, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	client = runNode(t, eng, docker.ContainerSpec{
		Name: netName + "-client", Image: ref, Network: netName,
		Entrypoint: []string{"/usr/bin/node", "-e", wsClientScript},
	})
	if err := eng.WaitLog(ctx, client.ID, "streaming", 30*time.Second); err != nil {
		out, _, _ := eng.LogsAll(ctx, client.ID)
		t.Fatalf("%v; client log %q", err, out)
	}
	return target, client
}

// TestNodeTargetEvents: the image serves /events with the ws library it
// carries; on SIGTERM (full mode, --init) the stream gets 1001, the target
// logs ws_closing and ws_close_sent, drains and exits 0.
func TestNodeTargetEvents(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	ref := nodeImage(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	target, client := wsPair(t, eng, ref, "wsfull", true,
		"MODE=full", "EVENTS_PER_S=50", "PRESTOP_MS=200", "CLOSE_SPREAD_MS=300", "DRAIN_MS=10000")
	if err := eng.Kill(ctx, target.ID, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	exited, st, err := eng.WaitExit(ctx, target.ID, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	out, _, _ := eng.LogsAll(ctx, target.ID)
	t.Logf("target exited=%v code=%d; log:\n%s", exited, st.ExitCode, out)
	if !exited || st.ExitCode != 0 {
		t.Fatalf("target: exited=%v code=%d, want exit 0", exited, st.ExitCode)
	}
	for _, ev := range []string{`"event":"ws_closing","ms":`, `"conns":1,`, `"event":"ws_close_sent"`, `"drained"`} {
		if !bytes.Contains(out, []byte(ev)) {
			t.Errorf("target log lacks %s", ev)
		}
	}
	cexited, cst, err := eng.WaitExit(ctx, client.ID, 10*time.Second)
	cout, _, _ := eng.LogsAll(ctx, client.ID)
	if err != nil || !cexited || cst.ExitCode != 0 || !bytes.Contains(cout, []byte("close=1001")) {
		t.Errorf("client: exited=%v code=%d err=%v log %q, want close 1001", cexited, cst.ExitCode, err, cout)
	}
}

// TestNodeTargetCloseModeStreams is W2 end to end: close mode, Node as
// PID 1, `docker stop -t 3` while a stream is open. server.close() leaves
// the upgraded socket alone and waits for it, so the grace period's
// SIGKILL ends the process (137) after the full 3 s and the client sees
// no close frame (1006).
func TestNodeTargetCloseModeStreams(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	ref := nodeImage(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	target, client := wsPair(t, eng, ref, "wsclose", false, "MODE=close", "EVENTS_PER_S=50")
	grace := 3
	t0 := time.Now()
	if err := eng.Stop(ctx, target.ID, &grace); err != nil {
		t.Fatal(err)
	}
	held := time.Since(t0)
	exited, st, err := eng.WaitExit(ctx, target.ID, 10*time.Second)
	if err != nil || !exited {
		t.Fatalf("target: exited=%v err=%v after docker stop", exited, err)
	}
	out, _, _ := eng.LogsAll(ctx, target.ID)
	t.Logf("docker stop -t %d returned after %v, exit %d; log:\n%s", grace, held.Round(time.Millisecond), st.ExitCode, out)
	if st.ExitCode != 137 || held < time.Duration(grace)*time.Second {
		t.Errorf("exit %d after %v, want 137 (SIGKILL) after the whole %d s grace", st.ExitCode, held, grace)
	}
	for _, ev := range []string{`"signal":"SIGTERM"`, `"listener_closed"`} {
		if !bytes.Contains(out, []byte(ev)) {
			t.Errorf("target log lacks %s", ev)
		}
	}
	if bytes.Contains(out, []byte(`"shutdown_returned"`)) {
		t.Error("server.close() returned with a stream open")
	}
	cexited, _, err := eng.WaitExit(ctx, client.ID, 10*time.Second)
	cout, _, _ := eng.LogsAll(ctx, client.ID)
	if err != nil || !cexited || !bytes.Contains(cout, []byte("close=1006")) {
		t.Errorf("client: exited=%v err=%v log %q, want close 1006", cexited, err, cout)
	}
}
