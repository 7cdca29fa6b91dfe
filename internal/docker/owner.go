package docker

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Label keys that record which process created an object, so that a
// cleanup can tell an orphan (its creator is gone) from an object a live
// run is using. They are set by [Engine.Labels] beside LabelSession.
const (
	// LabelOwnerHost is the creating process's host name.
	LabelOwnerHost = "shutdownlab.owner.host"
	// LabelOwnerPID is its process id, in decimal.
	LabelOwnerPID = "shutdownlab.owner.pid"
	// LabelOwnerStart is its start time as the kernel counts it (field 22
	// of /proc/PID/stat: clock ticks since boot), which tells a live owner
	// from a later process that reused its pid. Empty where there is no
	// /proc.
	LabelOwnerStart = "shutdownlab.owner.start"
)

// Owner identifies the process that created an object.
type Owner struct {
	// Host is the host name, PID the process id, Start the process start
	// time (see LabelOwnerStart; "" when unknown).
	Host  string
	PID   int
	Start string
}

// String is "pid 123 on host h (start 456)".
func (o Owner) String() string {
	s := fmt.Sprintf("pid %d on host %s", o.PID, o.Host)
	if o.Start != "" {
		s += " (start " + o.Start + ")"
	}
	return s
}

// labels returns the owner labels of o.
func (o Owner) labels() map[string]string {
	return map[string]string{
		LabelOwnerHost:  o.Host,
		LabelOwnerPID:   strconv.Itoa(o.PID),
		LabelOwnerStart: o.Start,
	}
}

// ownerFromLabels reads the owner labels; ok is false when an object has
// none (it was made by a shutdownlab older than the owner labels).
func ownerFromLabels(l map[string]string) (Owner, bool) {
	pid, err := strconv.Atoi(l[LabelOwnerPID])
	if err != nil || pid <= 0 || l[LabelOwnerHost] == "" {
		return Owner{}, false
	}
	return Owner{Host: l[LabelOwnerHost], PID: pid, Start: l[LabelOwnerStart]}, true
}

// CurrentOwner describes this process.
func CurrentOwner() Owner {
	host, _ := os.Hostname()
	pid := os.Getpid()
	return Owner{Host: host, PID: pid, Start: processStart(pid)}
}

// processStart returns the start time of process pid from /proc/PID/stat
// (field 22, after the parenthesised command name, which may itself hold
// spaces and parentheses), or "" when it cannot be read.
func processStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	// After ") " come fields 3 (state) onwards; the start time is field 22.
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// processAlive reports whether a process with this pid exists (signal 0:
// EPERM means it exists but belongs to another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// procs is how an orphan decision looks at the local process table;
// tests replace it.
type procs struct {
	alive func(pid int) bool
	start func(pid int) string
}

var localProcs = procs{alive: processAlive, start: processStart}

// orphaned decides whether objects of owner o may be removed by self: yes
// when o's process is gone (same host, and no process with its pid, or a
// process with its pid but another start time); no when it is alive, on
// another host (its processes cannot be seen from here), or unknown. The
// reason says which, for the listing.
func orphaned(o Owner, known bool, self Owner, p procs) (bool, string) {
	switch {
	case !known:
		return false, "no owner recorded (made by an older shutdownlab); remove it with --all"
	case o.Host != self.Host:
		return false, fmt.Sprintf("owner %s: another host, its processes cannot be checked from %s", o, self.Host)
	case !p.alive(o.PID):
		return true, fmt.Sprintf("owner %s is gone", o)
	}
	now := p.start(o.PID)
	switch {
	case o.Start != "" && now != "" && now != o.Start:
		return true, fmt.Sprintf("owner %s is gone (pid %d now belongs to a process started at %s)", o, o.PID, now)
	case o.Start == "" || now == "":
		return false, fmt.Sprintf("owner %s: a process with that pid is alive (start time unknown, so it counts as the owner)", o)
	}
	return false, fmt.Sprintf("owner %s is alive", o)
}
