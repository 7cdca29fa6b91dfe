package targetapp_test

// Black-box tests of the target image (cmd/target in a FROM scratch image,
// as the runner uses it), driven through testcontainers-go against the local
// engine. Our docker layer is only used to build the image, to send the
// signal (docker kill -s TERM; testcontainers' Stop would be docker stop)
// and to wait for the exit.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/record"
)

// targetImageName is the runner's image name (images.TargetImageName), so
// the content-hash tag built here is the one the runner reuses.
const targetImageName = "shutdownlab/target"

const (
	upLine      = `"event":"up"`
	upTimeout   = 30 * time.Second
	exitTimeout = 10 * time.Second
)

var (
	imageMu  sync.Mutex
	imageRef string
)

// targetImage builds (or finds cached) the target image once per test
// binary and returns its reference.
func targetImage(t *testing.T, eng *docker.Engine) string {
	t.Helper()
	imageMu.Lock()
	defer imageMu.Unlock()
	if imageRef != "" {
		return imageRef
	}
	root, err := filepath.Abs("..") // the module root, from targetapp/
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t0 := time.Now()
	ref, built, err := images.Build(ctx, eng, images.Spec{Name: targetImageName, Package: "./cmd/target", ModuleDir: root})
	if err != nil {
		t.Fatalf("building the target image: %v", err)
	}
	t.Logf("target image %s (built=%v) in %s", ref, built, time.Since(t0).Round(time.Millisecond))
	imageRef = ref
	return ref
}

// setupImageTest pins the testcontainers settings, requires Docker and
// returns the engine, the image and a context bounded for the test.
func setupImageTest(t *testing.T) (*docker.Engine, string, context.Context) {
	t.Helper()
	dockertest.PinTestcontainersEnv() // before any testcontainers call
	eng := dockertest.RequireDocker(t)
	img := targetImage(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return eng, img, ctx
}

// startTarget runs the image with env, Docker's init on or off (set
// explicitly, so a daemon-wide default cannot change the test), waits for
// the "up" line and registers the container's removal.
func startTarget(t *testing.T, ctx context.Context, eng *docker.Engine, img, name string, env map[string]string, init bool, ports ...string) *testcontainers.DockerContainer {
	t.Helper()
	opts := []testcontainers.ContainerCustomizer{
		testcontainers.WithName(eng.Session() + "-" + name),
		testcontainers.WithLabels(eng.Labels(nil)),
		testcontainers.WithEnv(env),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) { hc.Init = &init }),
		testcontainers.WithWaitStrategy(wait.ForLog(upLine).WithStartupTimeout(upTimeout)),
	}
	if len(ports) > 0 {
		opts = append(opts, testcontainers.WithExposedPorts(ports...))
	}
	t0 := time.Now()
	c, err := testcontainers.Run(ctx, img, opts...)
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		t.Fatalf("testcontainers.Run %s: %v", name, err)
	}
	t.Logf("%s: up after %s", name, time.Since(t0).Round(time.Millisecond))
	ins, err := c.Inspect(ctx)
	if err != nil {
		t.Fatalf("Inspect %s: %v", name, err)
	}
	if got := ins.HostConfig != nil && ins.HostConfig.Init != nil && *ins.HostConfig.Init; got != init {
		t.Fatalf("%s: HostConfig.Init = %v, want %v", name, got, init)
	}
	return c
}

// containerLogs returns the container's stdout and stderr (merged by
// testcontainers) as text.
func containerLogs(ctx context.Context, c *testcontainers.DockerContainer) string {
	rc, err := c.Logs(ctx)
	if err != nil {
		return fmt.Sprintf("<logs unavailable: %v>", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return string(b) + fmt.Sprintf("\n<reading logs: %v>", err)
	}
	return string(b)
}

// parseEvents decodes the lifecycle lines of logs; other lines (stderr,
// garbage) are returned apart.
func parseEvents(logs string) (events []record.Event, other []string) {
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var ev record.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Event == "" {
			other = append(other, line)
			continue
		}
		events = append(events, ev)
	}
	return events, other
}

func findEvent(events []record.Event, name string) (record.Event, bool) {
	for _, ev := range events {
		if ev.Event == name {
			return ev, true
		}
	}
	return record.Event{}, false
}

func fmtCode(c *int) string {
	if c == nil {
		return "<none>"
	}
	return fmt.Sprint(*c)
}

func describeState(st docker.State) string {
	return fmt.Sprintf("status=%s running=%v exit_code=%d oom_killed=%v error=%q init=%v started=%s finished=%s",
		st.Status, st.Running, st.ExitCode, st.OOMKilled, st.Error, st.Init,
		st.StartedAt.Format(time.RFC3339Nano), st.FinishedAt.Format(time.RFC3339Nano))
}

// sigtermAndWait sends SIGTERM like docker kill -s TERM and waits (at most
// exitTimeout) for the container to stop; it fails the test if it does not.
func sigtermAndWait(t *testing.T, ctx context.Context, eng *docker.Engine, c *testcontainers.DockerContainer) (docker.State, time.Time) {
	t.Helper()
	id := c.GetContainerID()
	sent := time.Now()
	if err := eng.Kill(ctx, id, "SIGTERM"); err != nil {
		t.Fatalf("kill -s TERM: %v\nlogs:\n%s", err, containerLogs(ctx, c))
	}
	exited, st, err := eng.WaitExit(ctx, id, exitTimeout)
	if err != nil {
		t.Fatalf("waiting for exit: %v\nlogs:\n%s", err, containerLogs(ctx, c))
	}
	if !exited {
		t.Fatalf("container still running %s after SIGTERM: %s\nlogs:\n%s", exitTimeout, describeState(st), containerLogs(ctx, c))
	}
	t.Logf("exited %s after SIGTERM with code %d", st.FinishedAt.Sub(sent).Round(time.Millisecond), st.ExitCode)
	return st, sent
}

// TestImageNoneWithoutInitExits2: MODE=none as PID 1 (no --init) has no
// handler, so on SIGTERM the Go runtime exits with code 2, silently.
func TestImageNoneWithoutInitExits2(t *testing.T) {
	eng, img, ctx := setupImageTest(t)
	c := startTarget(t, ctx, eng, img, "none-noinit", map[string]string{"MODE": "none"}, false)

	st, _ := sigtermAndWait(t, ctx, eng, c)
	logs := containerLogs(ctx, c)
	if st.ExitCode != 2 {
		t.Fatalf("exit code %d, want 2 (Go runtime default for SIGTERM as PID 1)\nstate: %s\nlogs:\n%s", st.ExitCode, describeState(st), logs)
	}
	events, _ := parseEvents(logs)
	if up, ok := findEvent(events, "up"); !ok || up.Mode != "none" {
		t.Errorf("want an up event with mode none, got %+v (found=%v)\nlogs:\n%s", up, ok, logs)
	}
	for _, name := range []string{"signal", "exit"} {
		if _, ok := findEvent(events, name); ok {
			t.Errorf("none mode logged a %q event; it must not handle signals\nlogs:\n%s", name, logs)
		}
	}
}

// postResult is the outcome of one POST /write from the host.
type postResult struct {
	id     string
	status int
	err    error
	done   time.Time
}

func (r postResult) String() string {
	if r.err != nil {
		return fmt.Sprintf("%s: error %v", r.id, r.err)
	}
	return fmt.Sprintf("%s: %d", r.id, r.status)
}

// TestImageFullWithInitDrainsAndKeepsLedger: MODE=full behind Docker's init
// drains the writes in flight at SIGTERM, exits 0, and every write answered
// 200 is in the ledger (a 200 whose id is missing is a lost write).
func TestImageFullWithInitDrainsAndKeepsLedger(t *testing.T) {
	const (
		nPosts  = 5
		writeMs = 500
	)
	eng, img, ctx := setupImageTest(t)
	c := startTarget(t, ctx, eng, img, "full-init",
		map[string]string{"MODE": "full", "PRESTOP_MS": "200"}, true, "8080/tcp")

	base, err := c.PortEndpoint(ctx, "8080/tcp", "http")
	if err != nil {
		t.Fatalf("PortEndpoint: %v", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		t.Fatalf("endpoint %s is not on loopback (TESTCONTAINERS_HOST_OVERRIDE not pinned?)", base)
	}
	t.Logf("endpoint %s", base)

	// A plain test client (not the measured one), never through a proxy.
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: nPosts + 1}
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)

	readyz := func() (status, inflight int, err error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/readyz", nil)
		if err != nil {
			return 0, 0, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, 0, err
		}
		defer resp.Body.Close()
		var body struct {
			Inflight int `json:"inflight"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			return resp.StatusCode, 0, fmt.Errorf("decoding /readyz: %w", err)
		}
		return resp.StatusCode, body.Inflight, nil
	}
	// The app logged "up"; make sure the published port reaches it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		status, _, err := readyz()
		if err == nil && status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz via %s never answered 200: status %d err %v\nlogs:\n%s", base, status, err, containerLogs(ctx, c))
		}
		time.Sleep(20 * time.Millisecond)
	}

	results := make([]postResult, nPosts)
	var wg sync.WaitGroup
	for i := range nPosts {
		id := fmt.Sprintf("%s-w%d", eng.Session(), i)
		results[i].id = id
		wg.Go(func() {
			r := &results[i]
			defer func() { r.done = time.Now() }()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, fmt.Sprintf("%s/write?ms=%d", base, writeMs), nil)
			if err != nil {
				r.err = err
				return
			}
			req.Header.Set("X-Request-Id", id)
			resp, err := hc.Do(req)
			if err != nil {
				r.err = err
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			r.status = resp.StatusCode
		})
	}
	// Signal only once all writes are in flight in the app.
	deadline = time.Now().Add(3 * time.Second)
	for {
		_, inflight, err := readyz()
		if err == nil && inflight >= nPosts {
			break
		}
		if time.Now().After(deadline) {
			wg.Wait()
			t.Fatalf("never saw %d writes in flight (last inflight=%d err=%v); results %+v\nlogs:\n%s",
				nPosts, inflight, err, results, containerLogs(ctx, c))
		}
		time.Sleep(5 * time.Millisecond)
	}

	st, sent := sigtermAndWait(t, ctx, eng, c)
	wg.Wait()
	logs := containerLogs(ctx, c)
	// Collect every problem, then report them once with the evidence.
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var ledger []byte
	defer func() {
		if len(problems) > 0 {
			t.Errorf("%s\nstate: %s\nresults: %v\nledger:\n%s\nlogs:\n%s",
				strings.Join(problems, "\n"), describeState(st), results, ledger, logs)
		}
	}()

	var ok200 []string
	for _, r := range results {
		switch {
		case r.err != nil:
			fail("POST %s: %v (full mode must finish writes in flight at SIGTERM)", r.id, r.err)
		case r.status != http.StatusOK:
			fail("POST %s: status %d, want 200", r.id, r.status)
		case !r.done.After(sent):
			fail("POST %s answered before SIGTERM was sent: it was not in flight, the test proves nothing", r.id)
		default:
			ok200 = append(ok200, r.id)
			t.Logf("POST %s: 200, %s after SIGTERM", r.id, r.done.Sub(sent).Round(time.Millisecond))
		}
	}

	if st.ExitCode != 0 {
		fail("exit code %d, want 0", st.ExitCode)
	}
	events, _ := parseEvents(logs)
	if sig, ok := findEvent(events, "signal"); !ok {
		fail(`no "event":"signal" in the logs: SIGTERM did not reach the app through init`)
	} else if sig.Signal != "SIGTERM" {
		fail("signal event for %q, want SIGTERM", sig.Signal)
	}
	if _, ok := findEvent(events, "drained"); !ok {
		fail(`no "event":"drained" in the logs`)
	}
	if ex, ok := findEvent(events, "exit"); !ok {
		fail(`no "event":"exit" in the logs`)
	} else if ex.Code == nil || *ex.Code != 0 {
		fail(`"event":"exit" with code %v, want 0`, fmtCode(ex.Code))
	}

	// The ledger, read back from the stopped container.
	rc, err := c.CopyFileFromContainer(ctx, "/data/ledger.log")
	if err == nil {
		ledger, err = io.ReadAll(rc)
		rc.Close()
	}
	if err != nil {
		fail("reading /data/ledger.log from the container: %v", err)
		return
	}
	have := map[string]bool{}
	for _, line := range bytes.Split(ledger, []byte("\n")) {
		if s := strings.TrimSpace(string(line)); s != "" {
			have[s] = true
		}
	}
	var lost []string
	for _, id := range ok200 {
		if !have[id] {
			lost = append(lost, id)
		}
	}
	sort.Strings(lost)
	if len(lost) > 0 {
		fail("lost writes: answered 200 but missing from the ledger: %v", lost)
		return
	}
	if len(problems) == 0 {
		t.Logf("%d/%d writes answered 200, all in the ledger (%d lines)", len(ok200), nPosts, len(have))
	}
}
