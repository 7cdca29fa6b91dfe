package resources

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// DefaultCgroupRoot is where the host mounts its cgroup file systems.
const DefaultCgroupRoot = "/sys/fs/cgroup"

// CgroupProcs returns the cgroup.procs file that lists the processes of
// pid's cgroup (a container's, for its init process), so that a sampler
// reads those processes and no other process on the host. It
// reads proc/PID/cgroup and tries, in order, the cgroup v1 hierarchies
// that hold every process of a container (pids, memory, then any other
// line) under root/<controllers>/<path>, and the v2 path under root and
// root/unified; the first file that exists and lists pid is the one. An
// error says what was tried.
func CgroupProcs(proc, root string, pid int) (string, error) {
	cg := filepath.Join(proc, strconv.Itoa(pid), "cgroup")
	b, err := os.ReadFile(cg)
	if err != nil {
		return "", err
	}
	var tried []string
	for _, cand := range cgroupCandidates(b, root) {
		tried = append(tried, cand)
		ok, err := listsPID(cand, pid)
		if err == nil && ok {
			return cand, nil
		}
	}
	if len(tried) == 0 {
		return "", fmt.Errorf("%s: no cgroup line in %q", cg, b)
	}
	return "", fmt.Errorf("no cgroup.procs listing PID %d (from %s) under %s: tried %s", pid, cg, root, strings.Join(tried, ", "))
}

// cgroupCandidates lists the cgroup.procs paths a /proc/PID/cgroup text
// points at, most specific first: v1 pids, v1 memory, the other v1
// hierarchies in file order, then v2.
func cgroupCandidates(text []byte, root string) []string {
	var pids, memory, other, v2 []string
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 || !strings.HasPrefix(f[2], "/") || strings.Contains(f[2], "/../") || strings.HasSuffix(f[2], "/..") {
			continue
		}
		rel := filepath.Clean(f[2])
		if f[1] == "" {
			v2 = append(v2, filepath.Join(root, rel, "cgroup.procs"), filepath.Join(root, "unified", rel, "cgroup.procs"))
			continue
		}
		dir := strings.TrimPrefix(f[1], "name=")
		p := filepath.Join(root, dir, rel, "cgroup.procs")
		switch ctrls := strings.Split(f[1], ","); {
		case slices.Contains(ctrls, "pids"):
			pids = append(pids, p)
		case slices.Contains(ctrls, "memory"):
			memory = append(memory, p)
		default:
			other = append(other, p)
		}
	}
	return slices.Concat(pids, memory, other, v2)
}

// listsPID reports whether the cgroup.procs file at path lists pid.
func listsPID(path string, pid int) (bool, error) {
	members, err := cgroupMembers(path)
	if err != nil {
		return false, err
	}
	return slices.Contains(members, pid), nil
}

// cgroupMembers reads the pids a cgroup.procs file lists, one per line.
func cgroupMembers(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, l := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(l)
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("%s: %q is not a pid", path, l)
		}
		out = append(out, pid)
	}
	return out, nil
}
