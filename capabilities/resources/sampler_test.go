package resources

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
)

// pidView is a run whose engine gives every container a fixed PID and
// whose load has not started; nothing else is called.
type pidView struct {
	runner.RunView
	pid int
}

func (v pidView) ContainerPID(context.Context, string) (int, error) { return v.pid, nil }
func (v pidView) LoadStartNs() int64                                { return 0 }
func (v pidView) Logf(string, ...any)                               {}

// fakeProc writes a /proc entry for pid (parent ppid) with fds open files,
// threads tasks and cgroup text cg.
func fakeProc(t *testing.T, proc string, pid, ppid, fds, threads int, cg string) {
	t.Helper()
	dir := filepath.Join(proc, strconv.Itoa(pid))
	files := map[string]string{
		"stat":   strconv.Itoa(pid) + " (app) S " + strconv.Itoa(ppid) + " 1 1 0",
		"status": "Name:\tapp\nPPid:\t" + strconv.Itoa(ppid) + "\nVmRSS:\t  100 kB\nThreads:\t" + strconv.Itoa(threads) + "\n",
		"cgroup": cg,
	}
	for _, d := range []string{"fd", "task"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for k := range fds {
		os.WriteFile(filepath.Join(dir, "fd", strconv.Itoa(k)), nil, 0o644)
	}
	for k := range threads {
		os.WriteFile(filepath.Join(dir, "task", strconv.Itoa(pid+k)), nil, 0o644)
	}
}

func TestProcOf(t *testing.T) {
	proc := t.TempDir()
	const id = "0123456789abcdef0123"
	fakeProc(t, proc, 42, 1, 3, 1, "12:pids:/docker/"+id+"\n")
	fakeProc(t, proc, 43, 1, 3, 1, "0::/user.slice\n")
	tests := []struct {
		pid  int
		want string // "" or a part of the reason
	}{
		{42, ""},
		{0, "no PID"},
		{43, "is not the container's"},
		{44, "cannot be read in this host's"},
	}
	for _, tt := range tests {
		got := procOf(proc, tt.pid, id)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("procOf(%d) = %q, want %q", tt.pid, got, tt.want)
		}
	}
}

// A replica whose process tree is in this /proc is sampled until the tree
// is gone; its samples are written, named by the replica, and summed per
// tick they count the tree's fds. One whose PID is not the container's is
// recorded as not sampled, and nothing is written for it.
func TestSampleReplica(t *testing.T) {
	proc := t.TempDir()
	old := procRoot
	procRoot = proc
	defer func() { procRoot = old }()
	const id = "feedfacefeedface"
	fakeProc(t, proc, 100, 1, 5, 2, "0::/system.slice/docker-"+id+".scope\n")
	fakeProc(t, proc, 101, 100, 4, 3, "0::/system.slice/docker-"+id+".scope\n")
	fakeProc(t, proc, 200, 1, 9, 1, "0::/elsewhere\n")
	// The container's cgroup lists 100 and 101; 102, 100's child outside
	// it, is never read (its stat would be an error).
	fakeProc(t, proc, 102, 100, 1, 1, "0::/elsewhere\n")
	os.WriteFile(filepath.Join(proc, "102", "stat"), []byte("unreadable"), 0o644)
	cgroups := t.TempDir()
	oldCg := cgroupRoot
	cgroupRoot = cgroups
	defer func() { cgroupRoot = oldCg }()
	scope := filepath.Join(cgroups, "system.slice", "docker-"+id+".scope")
	os.MkdirAll(scope, 0o755)
	os.WriteFile(filepath.Join(scope, "cgroup.procs"), []byte("100\n101\n"), 0o644)

	for _, tc := range []struct {
		pid     int
		sampled bool
	}{{100, true}, {200, false}} {
		s, dir, meta := &resourceSampler{view: pidView{pid: tc.pid}}, t.TempDir(), &record.Meta{}
		s.ReplicaStarted(context.Background(), runner.Replica{Name: "replica-0", ContainerID: id})
		if tc.sampled {
			// The root goes at once (a rename): the sampler stops by
			// itself at its next tick, unless LoadEnded comes first.
			if err := os.Rename(filepath.Join(proc, "100"), filepath.Join(proc, "gone-100")); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.LoadEnded(meta, dir); err != nil {
			t.Fatal(err)
		}
		r := meta.Resources()
		if r == nil || len(r.Replicas) != 1 {
			t.Fatalf("pid %d: Meta.Resources = %+v, want one replica", tc.pid, r)
		}
		rep := r.Replicas[0]
		if rep.Name != "replica-0" || rep.PID != tc.pid || rep.Sampled != tc.sampled || (rep.NotSampled == "") != tc.sampled {
			t.Errorf("pid %d: replica %+v, want sampled %v with a reason when not", tc.pid, rep, tc.sampled)
		}
		samples := readSampleFile(t, dir)
		if !tc.sampled {
			if samples != nil {
				t.Errorf("pid %d: %d samples written for a replica not sampled", tc.pid, len(samples))
			}
			continue
		}
		if len(samples) == 0 || len(samples) != rep.Samples || rep.Ticks < 1 {
			t.Fatalf("pid %d: %d samples on disk, meta %+v", tc.pid, len(samples), rep)
		}
		// A tick that read the root read its child too (the child stays).
		perTick, rooted := map[int64]int{}, map[int64]bool{}
		for _, s := range samples {
			if s.Replica != "replica-0" {
				t.Errorf("sample %+v: want replica-0", s)
			}
			perTick[s.TimeNs] += s.FDs
			rooted[s.TimeNs] = rooted[s.TimeNs] || s.PID == 100
		}
		if len(rooted) == 0 || (rep.StoppedBy != "gone" && rep.StoppedBy != "context") {
			t.Errorf("no tick read the root, or stopped by %q (want gone or context)", rep.StoppedBy)
		}
		for ts, fds := range perTick {
			if rooted[ts] && fds != 9 {
				t.Errorf("tick %d: %d fds in the tree, want 5 + 4", ts, fds)
			}
		}
	}
}

func readSampleFile(t *testing.T, dir string) []record.ResourceSample {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, resultdir.ResourcesFile))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record.ResourceSample
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s record.ResourceSample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// beforeLoad keeps the last read taken at or before the load's start, and
// none for a replica started after it.
func TestBeforeLoad(t *testing.T) {
	proc := t.TempDir()
	old := procRoot
	procRoot = proc
	defer func() { procRoot = old }()
	fakeProc(t, proc, 300, 1, 6, 1, "")
	for _, tc := range []struct {
		name    string
		knownAt int // the call of loadStart that first returns the start
		want    bool
	}{{"start line after three reads", 4, true}, {"load already started", 1, false}} {
		calls, ls := 0, int64(0)
		loadStart := func() int64 {
			if calls++; calls == tc.knownAt {
				ls = time.Now().UnixNano()
			}
			return ls
		}
		rs := &replicaSampling{}
		rs.beforeLoad(context.Background(), 300, "", loadStart)
		if got := len(rs.atLoad) > 0; got != tc.want {
			t.Fatalf("%s: atLoad %+v, want one: %v", tc.name, rs.atLoad, tc.want)
		}
		if tc.want && (rs.atLoad[0].TimeNs > ls || rs.atLoad[0].FDs != 6) {
			t.Errorf("%s: atLoad %+v, want 6 fds read at or before %d", tc.name, rs.atLoad, ls)
		}
	}
}
