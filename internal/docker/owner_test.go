package docker

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeProcs is a process table: pid -> start time ("" = alive, start
// unknown); absent pids are not alive.
func fakeProcs(table map[int]string) procs {
	return procs{
		alive: func(pid int) bool { _, ok := table[pid]; return ok },
		start: func(pid int) string { return table[pid] },
	}
}

func TestOrphaned(t *testing.T) {
	self := Owner{Host: "h1", PID: 10, Start: "100"}
	table := fakeProcs(map[int]string{10: "100", 20: "200", 30: ""})
	tests := []struct {
		name   string
		owner  Owner
		known  bool
		remove bool
		reason string // in the reason
	}{
		// Objects made before owner labels existed: never removed by default.
		{"no owner labels", Owner{}, false, false, "no owner recorded"},
		// Another host's processes cannot be seen from here.
		{"other host", Owner{Host: "h2", PID: 99, Start: "1"}, true, false, "another host"},
		// Same host, pid gone: orphan.
		{"dead pid", Owner{Host: "h1", PID: 99, Start: "5"}, true, true, "is gone"},
		// Same host, pid alive with the same start time: live owner.
		{"live owner", Owner{Host: "h1", PID: 20, Start: "200"}, true, false, "is alive"},
		// Same host, pid reused by a later process: orphan.
		{"pid reused", Owner{Host: "h1", PID: 20, Start: "150"}, true, true, "now belongs to a process started at 200"},
		// Start time unknown on either side: an alive pid counts as the owner.
		{"start unknown now", Owner{Host: "h1", PID: 30, Start: "7"}, true, false, "start time unknown"},
		{"start not recorded", Owner{Host: "h1", PID: 20}, true, false, "start time unknown"},
		// This very process (another session of it) is alive.
		{"self", self, true, false, "is alive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			remove, reason := orphaned(tt.owner, tt.known, self, table)
			if remove != tt.remove || !strings.Contains(reason, tt.reason) {
				t.Errorf("orphaned = %v %q, want %v and %q", remove, reason, tt.remove, tt.reason)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	e := &Engine{session: "mine", owner: Owner{Host: "h1", PID: 10, Start: "100"}}
	table := fakeProcs(map[int]string{10: "100"})
	live := Owner{Host: "h1", PID: 10, Start: "100"}.labels()
	live[LabelSession] = "other"
	dead := Owner{Host: "h1", PID: 11, Start: "100"}.labels()
	own := map[string]string{LabelSession: "mine"}
	for _, tt := range []struct {
		name   string
		labels map[string]string
		all    bool
		want   bool
	}{
		{"own session", own, false, true},
		{"live other session", live, false, false},
		{"live other session with --all", live, true, true},
		{"dead owner", dead, false, true},
		{"no labels", map[string]string{LabelSession: "old"}, false, false},
	} {
		if got, why := e.decide(tt.labels, tt.all, table); got != tt.want {
			t.Errorf("%s: decide = %v (%s), want %v", tt.name, got, why, tt.want)
		}
	}
}

// The owner labels round-trip, and CurrentOwner describes this process.
func TestOwnerLabels(t *testing.T) {
	me := CurrentOwner()
	if me.PID != os.Getpid() || me.Host == "" {
		t.Fatalf("CurrentOwner = %+v", me)
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil && me.Start == "" {
		t.Errorf("no start time read from /proc")
	}
	if _, err := strconv.ParseUint(me.Start, 10, 64); me.Start != "" && err != nil {
		t.Errorf("start %q is not a tick count", me.Start)
	}
	e := &Engine{session: "s", owner: me}
	got, ok := ownerFromLabels(e.Labels(map[string]string{LabelOwnerPID: "1"}))
	if !ok || got != me {
		t.Errorf("ownerFromLabels(Labels) = %+v %v, want %+v (extra labels must not override the owner)", got, ok, me)
	}
	if processAlive(me.PID) != true {
		t.Errorf("this process is not alive?")
	}
	// A child that has exited and been reaped is not alive.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	if processAlive(cmd.Process.Pid) && processStart(cmd.Process.Pid) == "" {
		t.Errorf("pid %d of an exited child looks alive", cmd.Process.Pid)
	}
}

// A socket that accepts connections and never answers must not hang New:
// it fails after the ping timeout, naming the socket and DOCKER_HOST.
func TestNewTimesOutOnSilentDaemon(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // hold it open, answer nothing
		}
	}()
	t.Setenv("DOCKER_HOST", "unix://"+sock)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = New(ctx, WithPingTimeout(300*time.Millisecond))
	if err == nil {
		t.Fatal("New succeeded against a daemon that never answers")
	}
	for _, want := range []string{"did not answer within 300ms", "unix://" + sock, "DOCKER_HOST=unix://" + sock, TimeoutEnv} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("New waited for the test's own deadline")
	}
}
