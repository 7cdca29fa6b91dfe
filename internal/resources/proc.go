// Package resources samples, from outside, the resources of a set of
// processes and their descendants: open file descriptors, resident memory
// and threads, read from a /proc file system (the host's, for the
// processes of a container) every interval into a series of
// record.ResourceSample.
//
// The parsing is pure (ParseStatus, ParseStatPPID); Snapshot reads one
// tick; Run samples until its context ends, a sample bound is reached or
// every root process is gone. Descendants are looked for only among the
// processes a cgroup.procs file lists (CgroupProcs finds a container's):
// no other process on the host is read. A process that exits between two reads is
// simply absent from that tick on; a /proc that cannot be read (permission
// denied: another user's process) is an error naming the path, never a
// silently short count.
package resources

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Status is what Snapshot reads from /proc/PID/status.
type Status struct {
	// Name is the command name.
	Name string
	// PPID is the parent's pid.
	PPID int
	// RSSBytes is VmRSS in bytes; 0 when the line is absent (a zombie or a
	// kernel thread).
	RSSBytes int64
	// Threads is the Threads line.
	Threads int
}

// ParseStatus parses the text of a /proc/PID/status file. PPid and
// Threads are required; VmRSS is optional but, when present, must be a
// number of kB.
func ParseStatus(r io.Reader) (Status, error) {
	var st Status
	var havePPID, haveThreads bool
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		var err error
		switch key {
		case "Name":
			st.Name = val
		case "PPid":
			st.PPID, err = strconv.Atoi(val)
			havePPID = err == nil
		case "Threads":
			st.Threads, err = strconv.Atoi(val)
			haveThreads = err == nil
		case "VmRSS":
			st.RSSBytes, err = parseKB(val)
		}
		if err != nil {
			return Status{}, fmt.Errorf("status: %s %q: %v", key, val, err)
		}
	}
	if err := sc.Err(); err != nil {
		return Status{}, fmt.Errorf("status: %v", err)
	}
	if !havePPID || !haveThreads {
		return Status{}, fmt.Errorf("status: no PPid or Threads line (PPid found: %v, Threads found: %v)", havePPID, haveThreads)
	}
	return st, nil
}

// parseKB parses "1234 kB" into bytes.
func parseKB(v string) (int64, error) {
	num, unit, _ := strings.Cut(v, " ")
	if strings.TrimSpace(unit) != "kB" {
		return 0, fmt.Errorf("want a number of kB")
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a number of kB")
	}
	return n * 1024, nil
}

// ParseStatPPID returns the parent pid from the text of /proc/PID/stat:
// "pid (comm) state ppid ...". comm may hold spaces and parentheses, so the
// fields are read after the last ')'.
func ParseStatPPID(b []byte) (int, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat: no ')' after the command name in %q", b)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, fmt.Errorf("stat: no ppid field in %q", b)
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, fmt.Errorf("stat: ppid %q: %v", f[1], err)
	}
	return ppid, nil
}

// gone reports whether err means the process no longer exists.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// countDir counts the entries of dir (/proc/PID/fd, /proc/PID/task).
func countDir(dir string) (int, error) {
	f, err := os.Open(dir)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	return len(names), err
}

// parents maps every pid in members to its parent pid, from
// proc/PID/stat; processes that vanish while it reads are left out. Only
// the listed pids are read: never the whole of proc.
func parents(proc string, members []int) (map[int]int, error) {
	out := make(map[int]int, len(members))
	for _, pid := range members {
		stat := filepath.Join(proc, strconv.Itoa(pid), "stat")
		b, err := os.ReadFile(stat)
		if gone(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		ppid, err := ParseStatPPID(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", stat, err)
		}
		out[pid] = ppid
	}
	return out, nil
}

// Descendants returns roots and every descendant of them in ppidOf
// (pid → parent pid), roots first, then in breadth-first order with each
// level's pids ascending. A root absent from ppidOf is left out.
func Descendants(roots []int, ppidOf map[int]int) []int {
	children := map[int][]int{}
	for pid, pp := range ppidOf {
		children[pp] = append(children[pp], pid)
	}
	seen := map[int]bool{}
	var out []int
	for _, r := range roots {
		if _, ok := ppidOf[r]; ok && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for i := 0; i < len(out); i++ {
		kids := children[out[i]]
		slices.Sort(kids)
		for _, k := range kids {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}
