package runner

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// loopbackEngine answers Inspect with a running container at 127.0.0.1
// on the run's network, so a readiness probe reaches a local server.
type loopbackEngine struct{ engine }

func (loopbackEngine) Inspect(_ context.Context, id string) (docker.State, error) {
	return docker.State{ID: id, Running: true, IPs: map[string]string{"net": "127.0.0.1"}}, nil
}

// statusServer answers GETs with the statuses in turn (the last one from
// then on), each after delay, and counts them.
func statusServer(t *testing.T, delay time.Duration, statuses ...int) (port int, served *atomic.Int32) {
	t.Helper()
	served = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(served.Add(1)) - 1
		time.Sleep(delay)
		w.WriteHeader(statuses[min(n, len(statuses)-1)])
	}))
	t.Cleanup(srv.Close)
	_, p, _ := net.SplitHostPort(srv.Listener.Addr().String())
	port, _ = strconv.Atoi(p)
	return port, served
}

// TestAwaitReady follows the kubelet's readiness rules on a local server:
// a pod without a probe is ready at its start; a probe passes on 2xx/3xx
// within its timeout; successThreshold passes must come in a row; no
// probe goes out before initialDelay (whole seconds, from the start); a
// pod not ready by its timeout is an error naming the probe.
func TestAwaitReady(t *testing.T) {
	const period = 40 * time.Millisecond
	tests := []struct {
		name      string
		delay     time.Duration
		statuses  []int
		probe     func(port int) *scenarios.Readiness
		timeout   time.Duration
		probes    int           // sent, when ready (or at the error)
		failed    int           // of them, not passed
		readyFrom time.Duration // ready no earlier than this after the start
		err       string
	}{
		{name: "no probe: ready at the start", probe: func(int) *scenarios.Readiness { return nil }},
		{name: "ready at the first 2xx", statuses: []int{503, 500, 200}, probes: 3, failed: 2, readyFrom: 2 * period},
		{name: "a redirect passes", statuses: []int{302}, probes: 1},
		{name: "two passes in a row", statuses: []int{200, 503, 200, 200}, probes: 4, failed: 1, readyFrom: 3 * period,
			probe: func(port int) *scenarios.Readiness { r := readiness(port, period); r.SuccessThreshold = 2; return r }},
		{name: "nothing before the initial delay", statuses: []int{200}, probes: 1, readyFrom: time.Second,
			probe: func(port int) *scenarios.Readiness {
				r := readiness(port, period)
				r.InitialDelay = scenarios.Duration(time.Second)
				return r
			}},
		{name: "an answer slower than the probe's timeout fails", delay: 300 * time.Millisecond, statuses: []int{200},
			probe: func(port int) *scenarios.Readiness {
				r := readiness(port, 100*time.Millisecond)
				r.Timeout = scenarios.Duration(50 * time.Millisecond)
				return r
			}, timeout: 250 * time.Millisecond, probes: 3, failed: 3, err: "did not pass within 250ms: 3 probes, 3 failed"},
		{name: "never ready", statuses: []int{503}, timeout: 5 * period, probes: 6, failed: 6, err: "readiness probe (GET /ready on port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port, _ := statusServer(t, tt.delay, append(tt.statuses, 200)[:max(1, len(tt.statuses))]...)
			r := readiness(port, period)
			if tt.probe != nil {
				r = tt.probe(port)
			}
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 5 * time.Second
			}
			x := &run{r: &Runner{eng: loopbackEngine{}}, obj: objects{network: "net"}}
			p := &newPodRun{spec: scenarios.NewPod{Readiness: r, Timeout: scenarios.Duration(timeout)}}
			start := time.Now()
			p.res.StartedNs = start.UnixNano()
			err := x.awaitReady(context.Background(), &docker.Container{ID: "new"}, p)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if p.res.ReadinessProbes != tt.probes || p.res.ReadinessProbesFailed != tt.failed {
				t.Errorf("probes %d, failed %d; want %d, %d", p.res.ReadinessProbes, p.res.ReadinessProbesFailed, tt.probes, tt.failed)
			}
			if tt.err != "" {
				return
			}
			if r == nil && p.res.ReadyNs != p.res.StartedNs {
				t.Errorf("ready %d ns after the start, want at it", p.res.ReadyNs-p.res.StartedNs)
			}
			if got := time.Duration(p.res.ReadyNs - p.res.StartedNs); got < tt.readyFrom {
				t.Errorf("ready %s after the start, want at least %s", got, tt.readyFrom)
			}
		})
	}
}

func readiness(port int, period time.Duration) *scenarios.Readiness {
	return &scenarios.Readiness{Path: "/ready", Port: port, Period: scenarios.Duration(period), Timeout: scenarios.Duration(time.Second), SuccessThreshold: 1}
}

// TestEndpointSet: the old pod's leaving and the new pod's joining load,
// in either order, the file of the state both made so far; a failed
// reload leaves the state as it was.
func TestEndpointSet(t *testing.T) {
	for _, tt := range []struct {
		name  string
		order []func(*endpointState)
		files []string
	}{
		{"join, then leave", []func(*endpointState){join, leave}, []string{endpointFiles[endpointState{true, true}], endpointFiles[endpointState{false, true}]}},
		{"leave, then join", []func(*endpointState){leave, join}, []string{deregisterConfigPath, endpointFiles[endpointState{false, true}]}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, adm := newEndpointSet(), &stubAdmin{}
			var files []string
			for _, change := range tt.order {
				_, sent, acked, err := e.change(context.Background(), adm, "proxy-id", change)
				if err != nil || sent == 0 || acked < sent {
					t.Fatalf("change: sent %d acked %d err %v", sent, acked, err)
				}
				files = append(files, adm.cmd[3])
			}
			if !slices.Equal(files, tt.files) {
				t.Errorf("loaded %q, want %q", files, tt.files)
			}
		})
	}
	e := newEndpointSet()
	if _, _, acked, err := e.change(context.Background(), &stubAdmin{code: 1, stderr: "refused"}, "p", leave); err == nil || acked != 0 {
		t.Fatalf("a failed reload: acked %d, err %v", acked, err)
	}
	if e.state != (endpointState{old: true}) {
		t.Errorf("state after a failed reload %+v, want the start state", e.state)
	}
	res := e.deregisterDue(context.Background(), &stubAdmin{}, "p", e.announce(time.Now(), leave), record.Deregistration{})
	if res.SentNs == 0 || res.AckedNs == 0 || res.Error != "" || e.state.old || res.Via != reloadVia(deregisterConfigPath) {
		t.Errorf("deregister: %+v, state %+v", res, e.state)
	}
}

// TestEndpointSetCoalesces: a joining that starts just before the
// announced leaving waits for its moment and carries it in one reload;
// the leaving then reports that reload; one further away reloads alone.
func TestEndpointSetCoalesces(t *testing.T) {
	for _, tt := range []struct {
		name   string
		ahead  time.Duration
		execs  int
		joined string
	}{
		{"due together", 20 * time.Millisecond, 1, endpointFiles[endpointState{false, true}]},
		{"due apart", coalesceWindow + 200*time.Millisecond, 2, endpointFiles[endpointState{true, true}]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, adm := newEndpointSet(), &stubAdmin{}
			at := time.Now().Add(tt.ahead)
			due := e.announce(at, leave)
			path, sent, acked, err := e.change(context.Background(), adm, "p", join)
			if err != nil || path != tt.joined {
				t.Fatalf("join: loaded %q, err %v; want %q", path, err, tt.joined)
			}
			res := e.deregisterDue(context.Background(), adm, "p", due, record.Deregistration{})
			if adm.execs != tt.execs || res.Error != "" || e.state != (endpointState{old: false, new: true}) {
				t.Fatalf("%d reloads, leaving %+v, state %+v; want %d reloads", adm.execs, res, e.state, tt.execs)
			}
			if res.SentNs < at.UnixNano() {
				t.Errorf("the leaving was sent %v before its moment", time.Duration(at.UnixNano()-res.SentNs))
			}
			if together := res.SentNs == sent && res.AckedNs == acked; together != (tt.execs == 1) {
				t.Errorf("leaving sent %d acked %d, joining sent %d acked %d: one reload %v", res.SentNs, res.AckedNs, sent, acked, tt.execs == 1)
			}
		})
	}
}

func join(s *endpointState)  { s.new = true }
func leave(s *endpointState) { s.old = false }

// TestNewPodObserved: a new pod that joined the proxy less than
// newPodObserveMin before the load's planned end (or after it) makes the
// run invalid, saying when it joined; one that joined in time, or never
// (its own error says why), does not.
func TestNewPodObserved(t *testing.T) {
	const start = int64(1_000_000_000_000)
	x := &run{spec: scenarios.Spec{Load: scenarios.LoadSpec{Duration: scenarios.Duration(8 * time.Second)}}}
	x.meta.LoadStartNs = start
	for _, tt := range []struct {
		joined time.Duration // after the load's start; 0: never
		want   string        // "" = valid
	}{
		{0, ""},
		{5 * time.Second, ""},
		{7 * time.Second, ""},
		{7*time.Second + 300*time.Millisecond, "joined the proxy 7.3s after the load started, 700ms before its end (load.duration 8s)"},
		{8*time.Second + 500*time.Millisecond, "500ms after its end"},
	} {
		res := record.NewPod{Name: "replica-3"}
		if tt.joined > 0 {
			res.RegisteredNs = start + int64(tt.joined)
		}
		err := x.newPodObserved(res)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("joined at %s: %v, want valid", tt.joined, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, new(*errInvalid))):
			t.Errorf("joined at %s: %v, want invalid with %q", tt.joined, err, tt.want)
		}
	}
}
