package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// The tests in this file measure stock third-party servers nobody here
// wrote (images.StockFixture: Debian's nginx, Apache httpd, HAProxy and
// lighttpd, and Caddy; no code of ours inside), whose shutdown is
// documented. The harness must report exactly what each author documents,
// at two action phases half a request period apart, so a false pass
// (dropped_inflight 0 for nginx's TERM, as once reported) cannot come back
// unnoticed, for any of them.

// zooCase is one row of TestStockZoo: a stock server, the action sent to
// it, and the documented behaviour of that action, which must also be the
// images table's (StockServer.Rule), so the table and the test cannot
// drift apart.
type zooCase struct {
	server string
	// signal is sent with docker kill; stop instead runs `docker stop -t 5`,
	// which sends SIGTERM (the fixtures set no STOPSIGNAL).
	signal string
	stop   bool
	// want is the documented action: images.ActionGraceful or ActionFast.
	want images.SignalAction
}

// zooCases: for every server its documented graceful and fast signal,
// each at action.at 2 s and 2.15 s; plus docker stop for nginx.
var zooCases = []zooCase{
	// nginx (https://nginx.org/en/docs/control.html): "TERM, INT: fast shutdown".
	{server: "nginx", signal: "SIGTERM", want: images.ActionFast},
	// nginx: "QUIT: graceful shutdown".
	{server: "nginx", signal: "SIGQUIT", want: images.ActionGraceful},
	// nginx: docker stop sends SIGTERM, a fast shutdown (the official nginx
	// image sets STOPSIGNAL SIGQUIT; Debian's nginx put in an image as-is
	// does not). The case once reported as dropped_inflight 0, a false pass.
	{server: "nginx", stop: true, want: images.ActionFast},
	// Apache httpd (https://httpd.apache.org/docs/2.4/stopping.html): TERM,
	// "stop now": "any requests in progress are terminated".
	{server: "apache", signal: "SIGTERM", want: images.ActionFast},
	// Apache httpd: WINCH, "graceful-stop": children "exit after their
	// current request", bounded by GracefulShutdownTimeout.
	{server: "apache", signal: "SIGWINCH", want: images.ActionGraceful},
	// HAProxy (https://docs.haproxy.org/2.6/management.html#4): SIGTERM,
	// hard stop: "it immediately quits and all established connections are
	// closed".
	{server: "haproxy", signal: "SIGTERM", want: images.ActionFast},
	// HAProxy: SIGUSR1, graceful stop: "continue to process existing
	// connections until they close", bounded by hard-stop-after.
	{server: "haproxy", signal: "SIGUSR1", want: images.ActionGraceful},
	// lighttpd 1.4.69 (doc/initscripts.txt): "SIGTERM - shut down
	// immediately (terminate existing connections, then exit)".
	{server: "lighttpd", signal: "SIGTERM", want: images.ActionFast},
	// lighttpd: "SIGINT - shut down gracefully (serve existing
	// connections, then exit)", bounded by server.graceful-shutdown-timeout.
	{server: "lighttpd", signal: "SIGINT", want: images.ActionGraceful},
	// Caddy (https://caddyserver.com/docs/command-line#signals): "SIGQUIT:
	// Quits Caddy immediately", exit code 2 ("forced quit").
	{server: "caddy", signal: "SIGQUIT", want: images.ActionFast},
	// Caddy: "SIGTERM: Graceful exit": existing connections are drained,
	// bounded by the grace_period (set to 10 s in the fixture).
	{server: "caddy", signal: "SIGTERM", want: images.ActionGraceful},
}

// zooClients is the closed-loop client count; each keeps one 300 ms
// request in flight nearly all the time.
const zooClients = 20

// zooScenario is a direct-topology scenario against a stock fixture: 20
// keep-alive clients on GET /slow (300 ms) for 4 s, the action (YAML lines
// under "action:") at 2 s and at 2.15 s (half a request apart).
const zooScenario = `name: zoo-%s-%s
description: Stock %s fixture, %s, at two phases.
runs: 1
target:
  image: %s
  protocol: {port: 8080, ready_path: /readyz, paths: [/slow]}
replicas: 1
load:
  shape: closed
  clients: %d
  duration: 4s
  timeout: 30s
  mix:
    - {method: GET, path: /slow, weight: 1}
action:
%s
observe:
  window: 10s
variants:
  action.at: [2s, 2150ms]
`

// label names a case in subtests and scenario names ("SIGQUIT",
// "docker-stop").
func (c zooCase) label() string {
	if c.stop {
		return "docker-stop"
	}
	return c.signal
}

// actionYAML is the case's action block.
func (c zooCase) actionYAML() string {
	if c.stop {
		return "  kind: stop\n  grace_period: 5s"
	}
	return "  kind: signal\n  stop_signal: " + c.signal
}

// TestStockZoo runs every zooCases row against its stock fixture: a
// documented graceful stop drops no in-flight request and lets some open at
// the action finish, a documented fast one loses at least half the clients'
// in-flight requests, and both end the server by itself with the table's
// exit code. Select a server with -run 'TestStockZoo/apache'.
func TestStockZoo(t *testing.T) {
	refs := map[string]string{}
	for _, c := range zooCases {
		t.Run(c.server+"/"+c.label(), func(t *testing.T) {
			s, err := images.LookupStockServer(c.server)
			if err != nil {
				t.Fatal(err)
			}
			sig := c.signal
			if c.stop {
				sig = "SIGTERM"
			}
			if rule, ok := s.Rule(sig); !ok || rule.Action != c.want {
				t.Fatalf("the images table documents %s %s as %+v, the test as %s", c.server, sig, rule, c.want)
			}
			exit := s.Stop.FastExit
			if c.want == images.ActionGraceful {
				exit = s.Stop.GracefulExit
			}
			r := newRunner(t)
			if refs[c.server] == "" {
				refs[c.server] = stockRef(t, r, c.server)
			}
			for _, p := range runZoo(t, r, c, refs[c.server]) {
				name := c.server + " " + c.label()
				checkZooCommon(t, name, p, exit)
				if c.want == images.ActionGraceful {
					checkGracefulStop(t, name, p)
				} else {
					checkFastStop(t, name, p)
				}
			}
		})
	}
}

// zooPhase is one measured run of a zoo case.
type zooPhase struct {
	label string
	m     report.Metrics
	// action is how the action went, as the runner recorded it.
	action record.Action
	// completed counts ok requests open at the action (started before T0)
	// that ended at or after T1, once the server had the signal: in-flight
	// requests the shutdown let finish.
	completed int
}

// stockRef builds (or reuses) a stock fixture image. A host without the
// server's package fails the test with the apt-get command that installs
// it; the Caddy fixture may first compile Caddy (minutes, once).
func stockRef(t *testing.T, r *runner.Runner, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var log bytes.Buffer
	ref, _, err := images.StockFixture(ctx, r.Engine(), name, &log)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s", ref, strings.TrimSpace(log.String()))
	return ref
}

// runZoo runs the zoo scenario for one case once per phase and returns the
// runs, each of which must be valid with counts that add up.
func runZoo(t *testing.T, r *runner.Runner, c zooCase, ref string) []zooPhase {
	t.Helper()
	label := strings.ToLower(c.label())
	file := filepath.Join(t.TempDir(), "zoo-"+c.server+"-"+label+".yaml")
	text := fmt.Sprintf(zooScenario, c.server, label, c.server, c.label(), ref, zooClients, c.actionYAML())
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Load(file)
	if err != nil {
		t.Fatalf("scenario:\n%s\n%v", text, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	keepOnFailure(t, oc.Dir)
	if oc.Runs != 2 || oc.Invalid != 0 || oc.Incomplete != 0 {
		t.Fatalf("outcome %+v, want 2 valid runs", oc)
	}
	res, err := report.Load(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []zooPhase
	for _, v := range res.Variants {
		if len(v.Runs) != 1 || !v.Runs[0].Valid {
			t.Fatalf("%s: runs %+v", v.Label, v.Runs)
		}
		run := v.Runs[0]
		p := zooPhase{label: v.Label, m: run.Metrics}
		p.completed = completedInflight(t, filepath.Join(oc.Dir, v.Slug, run.Name))
		if run.Meta.Action != nil {
			p.action = *run.Meta.Action
		}
		logZoo(t, c.server+" "+c.label(), p)
		out = append(out, p)
	}
	if len(out) != 2 {
		t.Fatalf("%d variants, want 2 (action.at 2s and 2.15s)", len(out))
	}
	return out
}
