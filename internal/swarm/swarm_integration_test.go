package swarm_test

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	swarmtypes "github.com/moby/moby/api/types/swarm"
	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/swarm"
)

// nodeState is the engine's swarm state ("inactive", "active", ...).
func nodeState(t *testing.T, eng *docker.Engine) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	info, err := eng.Client().Info(ctx, client.InfoOptions{})
	if err != nil {
		t.Fatalf("docker info: %v", err)
	}
	return string(info.Info.Swarm.LocalNodeState)
}

// TestRollout initialises a single-node swarm when the engine is in none,
// runs two replicas of the Go target as a dnsrr service on an attachable
// overlay network with a HEALTHCHECK on /readyz (the target's own health
// subcommand), rolls it start-first and stop-first, reads the tasks back
// with their exit codes and the engine's container events, removes
// everything and checks the swarm is left as found. It fails, never
// skips, without Docker (unless SHUTDOWNLAB_SKIP_DOCKER=1).
func TestRollout(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	sw := swarm.New(eng)
	before := nodeState(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	root, err := images.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := images.NewCache(eng, root, nil).Target(ctx, images.Target{})
	if err != nil {
		t.Fatalf("target image: %v", err)
	}
	lease, err := sw.Acquire(ctx)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	t.Logf("swarm: created by this test %v, node %s", lease.Created, lease.NodeID)
	t.Cleanup(func() {
		left, err := lease.Release(context.Background())
		if err != nil {
			t.Errorf("release: %v", err)
		}
		if after := nodeState(t, eng); after != before {
			t.Errorf("swarm state %q after the test, %q before (left %v)", after, before, left)
		}
	})
	net := "shutdownlab-" + eng.Session() + "-net"
	if _, err := sw.CreateOverlay(ctx, net, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sw.RemoveNetwork(context.Background(), net, 30*time.Second); err != nil {
			t.Errorf("remove network: %v", err)
		}
	})
	for _, order := range []string{"start-first", "stop-first"} {
		t.Run(order, func(t *testing.T) { rollout(t, ctx, sw, img, net, order) })
	}
}

// rollout creates the service, rolls it in the given order and checks what
// the engine reports.
func rollout(t *testing.T, ctx context.Context, sw *swarm.Engine, img, net, order string) {
	grace := 5 * time.Second
	name := fmt.Sprintf("shutdownlab-%s-%s", sw.Docker().Session(), order)
	id, err := sw.CreateService(ctx, swarm.ServiceConfig{
		Name: name, Image: img, Replicas: 2, Network: net, EndpointMode: swarm.EndpointDNSRR,
		Env:             []string{"MODE=full", "PORT=8080", "PRESTOP_MS=300", "DRAIN_MS=4000"},
		StopGracePeriod: &grace, Init: true,
		Health: &swarm.Health{Test: []string{"/app", "health", "/readyz"}, Interval: 500 * time.Millisecond,
			Timeout: 2 * time.Second, Retries: 2},
		Update: swarm.Update{Parallelism: 1, Order: order, FailureAction: "pause", Monitor: time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sw.RemoveService(context.Background(), id, 30*time.Second); err != nil {
			t.Errorf("remove service: %v", err)
		}
	})
	c, err := sw.WaitConverged(ctx, id, 2, 0, 250*time.Millisecond, 90*time.Second)
	if err != nil || !c.Converged {
		t.Fatalf("service never ran 2 healthy tasks (err %v): %+v", err, c.Tasks)
	}
	w, err := sw.WatchService(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sw.Update(ctx, id, swarm.Rollout{})
	if err != nil {
		t.Fatal(err)
	}
	c, err = sw.WaitConverged(ctx, id, 2, st.ForceUpdate, 250*time.Millisecond, 2*time.Minute)
	evs, _ := w.Stop(200 * time.Millisecond)
	if err != nil || !c.Converged {
		t.Fatalf("rollout did not converge (err %v, update %s %s): %+v", err, c.UpdateState, c.UpdateMessage, c.Tasks)
	}
	t.Logf("%s: converged %.0f ms after the update call, update status %q", order, float64(c.AtNs-st.SentNs)/1e6, c.UpdateState)
	old, died, started := 0, map[int]int64{}, map[int]int64{}
	slotOf := map[string]int{}
	for _, tk := range c.Tasks {
		slotOf[tk.ContainerID] = tk.Slot
		t.Logf("task %s slot %d gen %d desired %s state %s exit %v container %.12s", tk.ID[:12], tk.Slot, tk.ForceUpdate, tk.DesiredState, tk.State, deref(tk.ExitCode), tk.ContainerID)
		if tk.ForceUpdate < st.ForceUpdate {
			old++
			if tk.ExitCode == nil || *tk.ExitCode != 0 {
				t.Errorf("old task %s: exit code %v, want 0 (full mode drains and exits 0)", tk.ID, deref(tk.ExitCode))
			}
		}
	}
	if old != 2 {
		t.Errorf("%d old tasks read back, want 2", old)
	}
	kills := 0
	for _, e := range evs {
		switch e.Action {
		case "kill":
			if e.Signal == 15 {
				kills++
			}
		case "die":
			died[slotOf[e.ContainerID]] = e.TimeNs
		case "start":
			if _, ok := started[slotOf[e.ContainerID]]; !ok {
				started[slotOf[e.ContainerID]] = e.TimeNs
			}
		}
	}
	if kills < 2 {
		t.Errorf("%d SIGTERM kill events, want one per old task: %+v", kills, evs)
	}
	// Start-first starts each new task before the old one of its slot
	// dies; stop-first the other way round.
	for slot, d := range died {
		s, ok := started[slot]
		if !ok {
			t.Errorf("slot %d: no start event of a new task", slot)
			continue
		}
		if (order == "start-first") != (s < d) {
			t.Errorf("%s slot %d: new task started %.0f ms after the old one died", order, slot, float64(s-d)/1e6)
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return "none"
	}
	return *p
}

// TestLeaseTwoSessions checks that a second session keeps the swarm alive:
// A acquires (initialising the swarm when the engine has none), B acquires
// too, A releases and the swarm stays, B releases and the engine is back
// to its state before the test.
func TestLeaseTwoSessions(t *testing.T) {
	a := dockertest.RequireDocker(t)
	b := dockertest.RequireDocker(t)
	before := nodeState(t, a)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	la, err := swarm.New(a).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := swarm.New(b).Acquire(ctx)
	if err != nil {
		_, _ = la.Release(ctx)
		t.Fatal(err)
	}
	if lb.Created {
		t.Errorf("B initialised a swarm A already held")
	}
	if left, err := la.Release(ctx); err != nil || left {
		t.Errorf("A's release while B holds a lease: left %v, err %v", left, err)
	}
	if s := nodeState(t, a); s != "active" {
		t.Errorf("swarm %q after A's release, want active (B holds it)", s)
	}
	left, err := lb.Release(ctx)
	if err != nil {
		t.Errorf("B's release: %v", err)
	}
	if s := nodeState(t, a); s != before {
		t.Errorf("swarm %q after both releases, %q before (B left it: %v)", s, before, left)
	}
	if la.Created != left {
		t.Errorf("the swarm was created by A: %v, left by B: %v; want the same", la.Created, left)
	}
}

// TestCleanOrphans plays a run that was killed: a session whose owner
// process is gone holds a lease and a service on an overlay network.
// swarm.CleanOrphans, then docker's, from another session remove the
// service and the network, drop the stale lease and leave the swarm when
// shutdownlab created it: the engine is back as found.
func TestCleanOrphans(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	before := nodeState(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	self := docker.CurrentOwner()
	deadOwner := docker.Owner{Host: self.Host, PID: 1 << 22, Start: "1"} // above pid_max's default: no such process
	dead, err := docker.New(ctx, docker.WithSession(eng.Session()+"-dead"), docker.WithOwner(deadOwner))
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	root, err := images.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := images.NewCache(eng, root, nil).Target(ctx, images.Target{})
	if err != nil {
		t.Fatal(err)
	}
	sd := swarm.New(dead)
	lease, err := sd.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	net := "shutdownlab-" + dead.Session() + "-net"
	if _, err := sd.CreateOverlay(ctx, net, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sd.CreateService(ctx, swarm.ServiceConfig{Name: "shutdownlab-" + dead.Session(), Image: img, Replicas: 1,
		Network: net, EndpointMode: swarm.EndpointDNSRR, Env: []string{"MODE=none"}}); err != nil {
		t.Fatal(err)
	}
	// The "killed" session never releases; another one cleans up.
	rep, err := swarm.New(eng).CleanOrphans(ctx)
	if err != nil {
		t.Errorf("swarm clean: %v", err)
	}
	t.Logf("swarm clean: %s", rep)
	if len(rep.Services) != 1 || rep.StaleLeases != 1 || rep.Left != lease.Created {
		t.Errorf("clean report %+v; want 1 service, 1 stale lease, left %v", rep, lease.Created)
	}
	if _, err := eng.CleanOrphans(ctx, docker.CleanOptions{Match: map[string]string{docker.LabelSession: dead.Session()}}); err != nil {
		t.Errorf("docker clean: %v", err)
	}
	if left, _ := dead.Leftovers(ctx, map[string]string{docker.LabelSession: dead.Session()}); !left.Empty() {
		t.Errorf("left behind: %s", left)
	}
	if after := nodeState(t, eng); after != before {
		t.Errorf("swarm %q after the cleanup, %q before", after, before)
	}
}

// specLabels is the swarm's cluster spec labels.
func specLabels(ctx context.Context, t *testing.T, cli *client.Client) (map[string]string, swarmtypes.Swarm) {
	t.Helper()
	res, err := cli.SwarmInspect(ctx, client.SwarmInspectOptions{})
	if err != nil {
		t.Fatalf("swarm inspect: %v", err)
	}
	return maps.Clone(res.Swarm.Spec.Labels), res.Swarm
}

// TestLeaseOnUserSwarm: on a swarm the user initialised and labelled
// (the engine's own, when it has one; else one this test initialises as
// a user would), a session's Acquire writes its lease label and Release
// removes it: the cluster spec's labels end exactly as they were, and the
// swarm is not left.
func TestLeaseOnUserSwarm(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cli := eng.Client()
	if nodeState(t, eng) == "inactive" {
		if _, err := cli.SwarmInit(ctx, client.SwarmInitOptions{ListenAddr: swarm.ListenAddr, AdvertiseAddr: swarm.AdvertiseAddr}); err != nil {
			t.Fatalf("swarm init as the user: %v", err)
		}
		t.Cleanup(func() {
			lctx, lcancel := context.WithTimeout(context.Background(), time.Minute)
			defer lcancel()
			if _, err := cli.SwarmLeave(lctx, client.SwarmLeaveOptions{Force: true}); err != nil {
				t.Errorf("leaving the test's user swarm: %v", err)
			}
		})
		labels, sw := specLabels(ctx, t, cli)
		if labels == nil {
			labels = map[string]string{}
		}
		labels["com.example.team"] = "payments"
		sw.Spec.Labels = labels
		if _, err := cli.SwarmUpdate(ctx, client.SwarmUpdateOptions{Version: sw.Version, Spec: sw.Spec}); err != nil {
			t.Fatalf("labelling the user swarm: %v", err)
		}
	}
	before, _ := specLabels(ctx, t, cli)
	lease, err := swarm.New(eng).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	during, _ := specLabels(ctx, t, cli)
	if _, ok := during[swarm.LabelLeasePrefix+eng.Session()]; !ok || lease.Created {
		t.Errorf("while held: labels %v (want the session's lease), created %v (want false)", during, lease.Created)
	}
	left, err := lease.Release(ctx)
	if err != nil || left {
		t.Fatalf("release: left %v, err %v; want the user's swarm kept", left, err)
	}
	after, _ := specLabels(ctx, t, cli)
	if !maps.Equal(before, after) {
		t.Errorf("cluster spec labels %v after the session, %v before: a lease label stayed behind", after, before)
	}
	if s := nodeState(t, eng); s != "active" {
		t.Errorf("the user's swarm is %q after the session, want active", s)
	}
}
