package resources

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// self samples the test process alone.
func self(t *testing.T) record.ResourceSample {
	t.Helper()
	s, err := Snapshot("/proc", []int{os.Getpid()}, "", 1)
	if err != nil || len(s) != 1 {
		t.Fatalf("Snapshot of self = %+v, %v; want one sample", s, err)
	}
	return s[0]
}

// The test process opens a known number of files: its fd count, read from
// /proc from outside as for any process, rises by exactly that number and
// falls back when they are closed.
func TestSnapshotSelfFDs(t *testing.T) {
	const n = 7
	dir := t.TempDir()
	open := func() *os.File {
		f, err := os.Create(filepath.Join(dir, fmt.Sprint(time.Now().UnixNano())))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	open().Close() // whatever the runtime opens on a first file is open now
	before := self(t)
	var files []*os.File
	for range n {
		files = append(files, open())
	}
	after := self(t)
	for _, f := range files {
		f.Close()
	}
	closed := self(t)
	if after.FDs-before.FDs != n || closed.FDs != before.FDs {
		t.Errorf("fds %d → %d with %d files open → %d closed; want +%d, then back", before.FDs, after.FDs, n, closed.FDs, n)
	}
	if before.PID != os.Getpid() || before.PPID != os.Getppid() || before.Threads < 1 || before.RSSBytes <= 0 || before.Name == "" {
		t.Errorf("self sample %+v: want pid %d, ppid %d, threads, rss and a name", before, os.Getpid(), os.Getppid())
	}
}

// With a cgroup file listing both, a process the test started appears
// under the test process.
func TestSnapshotChildren(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	members := filepath.Join(t.TempDir(), "cgroup.procs")
	os.WriteFile(members, fmt.Appendf(nil, "%d\n%d\n", os.Getpid(), cmd.Process.Pid), 0o644)
	s, err := Snapshot("/proc", []int{os.Getpid()}, members, 1)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, x := range s {
		if x.PID == cmd.Process.Pid {
			found = x.PPID == os.Getpid() && x.Name == "sleep" && x.Threads == 1
		}
	}
	if len(s) < 2 || s[0].PID != os.Getpid() || !found {
		t.Errorf("samples %+v: want self first and the sleep child %d", s, cmd.Process.Pid)
	}
}

// fakeProc builds a /proc with the given processes: pid → ppid, fds and
// threads.
func fakeProc(t *testing.T, procs map[int][3]int) string {
	t.Helper()
	root := t.TempDir()
	for pid, p := range procs {
		dir := filepath.Join(root, fmt.Sprint(pid))
		for _, sub := range []string{"fd", "task"} {
			if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for i := range p[1] {
			os.WriteFile(filepath.Join(dir, "fd", fmt.Sprint(i)), nil, 0o644)
		}
		for i := range p[2] {
			os.Mkdir(filepath.Join(dir, "task", fmt.Sprint(pid+i)), 0o755)
		}
		os.WriteFile(filepath.Join(dir, "stat"), fmt.Appendf(nil, "%d (p %d) S %d 1 1 0", pid, pid, p[0]), 0o644)
		os.WriteFile(filepath.Join(dir, "status"), fmt.Appendf(nil,
			"Name:\tp%d\nPPid:\t%d\nVmRSS:\t %d kB\nThreads:\t%d\n", pid, p[0], pid, p[2]), 0o644)
	}
	os.MkdirAll(filepath.Join(root, "self"), 0o755) // not a pid: ignored
	return root
}

// members writes a cgroup.procs file listing pids.
func members(t *testing.T, pids ...int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cgroup.procs")
	var b []byte
	for _, pid := range pids {
		b = fmt.Appendf(b, "%d\n", pid)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Descendants are found among the cgroup's processes only: 102 is 101's
// child but outside the cgroup in the last-but-two row, and a process of
// another cgroup is never read (its stat is unreadable here).
func TestSnapshotFakeTree(t *testing.T) {
	proc := fakeProc(t, map[int][3]int{100: {1, 4, 2}, 101: {100, 9, 3}, 102: {101, 1, 1}, 200: {1, 5, 1}, 300: {100, 1, 1}})
	os.WriteFile(filepath.Join(proc, "300", "stat"), []byte("garbage"), 0o644)
	all := members(t, 100, 101, 102, 200)
	tests := []struct {
		roots  []int
		cgroup string
		want   string
	}{
		{[]int{100}, all, "100:1:4:2 101:100:9:3 102:101:1:1"},
		{[]int{100}, "", "100:1:4:2"},
		{[]int{101, 200}, all, "101:100:9:3 200:1:5:1 102:101:1:1"},
		{[]int{100}, members(t, 100, 101), "100:1:4:2 101:100:9:3"},
		{[]int{999}, all, ""},
		{[]int{999, 102}, "", "102:101:1:1"},
		{[]int{100}, filepath.Join(proc, "no-such-cgroup"), ""},
	}
	for _, tt := range tests {
		s, err := Snapshot(proc, tt.roots, tt.cgroup, 42)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range s {
			got = append(got, fmt.Sprintf("%d:%d:%d:%d", x.PID, x.PPID, x.FDs, x.Threads))
			if x.TimeNs != 42 || x.RSSBytes != int64(x.PID)*1024 {
				t.Errorf("sample %+v: want ts 42 and rss %d kB", x, x.PID)
			}
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("Snapshot(%v, cgroup %s) = %q, want %q", tt.roots, tt.cgroup, g, tt.want)
		}
	}
}

// A /proc that cannot be parsed is an error naming the file, never a
// short count.
func TestSnapshotBadStatus(t *testing.T) {
	proc := fakeProc(t, map[int][3]int{100: {1, 1, 1}})
	os.WriteFile(filepath.Join(proc, "100", "status"), []byte("Name:\tx\nPPid:\t1\nVmRSS:\t1 MB\nThreads:\t1\n"), 0o644)
	_, err := Snapshot(proc, []int{100}, "", 1)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(proc, "100", "status")) || !strings.Contains(err.Error(), "VmRSS") {
		t.Errorf("error %v, want one naming the status file and VmRSS", err)
	}
}

func TestRunConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no PIDs"},
		{Config{PIDs: []int{1}, Interval: 5 * time.Millisecond}, "interval 5ms: must be at least 10ms"},
		{Config{PIDs: []int{0}}, "pid 0"},
		{Config{PIDs: []int{1}, MaxSamples: -1}, "max samples -1"},
	} {
		if _, err := Run(context.Background(), tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run(%+v) error %v, want %q", tt.cfg, err, tt.want)
		}
	}
}

func TestRunStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Run(ctx, Config{PIDs: []int{os.Getpid()}, Interval: MinInterval, MaxSamples: 3})
	if err != nil || res.StoppedBy != StoppedByMaxSamples || len(res.Samples) != 3 || res.Ticks != 3 {
		t.Fatalf("max samples: %+v, %v; want 3 samples in 3 ticks", res, err)
	}
	for i := 1; i < 3; i++ {
		if res.Samples[i].TimeNs <= res.Samples[i-1].TimeNs {
			t.Errorf("sample times not increasing: %+v", res.Samples)
		}
	}

	res, err = Run(ctx, Config{Proc: fakeProc(t, nil), PIDs: []int{100}})
	if err != nil || res.StoppedBy != StoppedByGone || res.Ticks != 1 || len(res.Samples) != 0 {
		t.Errorf("no root: %+v, %v; want stopped by gone after one tick", res, err)
	}

	short, cancelShort := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancelShort() }()
	res, err = Run(short, Config{PIDs: []int{os.Getpid()}, Interval: MinInterval})
	if err != nil || res.StoppedBy != StoppedByContext || res.Ticks < 1 || len(res.Samples) != res.Ticks {
		t.Errorf("cancelled: %d ticks, %d samples, %q, %v; want stopped by context, one sample a tick",
			res.Ticks, len(res.Samples), res.StoppedBy, err)
	}
}
