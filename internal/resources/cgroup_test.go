package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CgroupProcs finds the container's cgroup.procs file on cgroup v1, v2
// and hybrid layouts, and only one that lists the process.
func TestCgroupProcs(t *testing.T) {
	const id = "0123456789abcdef"
	tests := []struct {
		name   string
		cgroup string // /proc/42/cgroup
		files  map[string]string
		want   string // relative to the cgroup root; "" for an error
		errHas string
	}{
		{"v2", "0::/system.slice/docker-" + id + ".scope\n",
			map[string]string{"system.slice/docker-" + id + ".scope/cgroup.procs": "42\n43\n"},
			"system.slice/docker-" + id + ".scope/cgroup.procs", ""},
		{"v1 pids before memory", "9:memory:/docker/" + id + "\n8:pids:/docker/" + id + "\n0::/\n",
			map[string]string{"pids/docker/" + id + "/cgroup.procs": "42\n", "memory/docker/" + id + "/cgroup.procs": "42\n"},
			"pids/docker/" + id + "/cgroup.procs", ""},
		{"v1 combined controllers", "2:cpu,cpuacct:/docker/" + id + "\n",
			map[string]string{"cpu,cpuacct/docker/" + id + "/cgroup.procs": "7\n42\n"},
			"cpu,cpuacct/docker/" + id + "/cgroup.procs", ""},
		{"hybrid unified", "1:name=systemd:/x\n0::/docker/" + id + "\n",
			map[string]string{"unified/docker/" + id + "/cgroup.procs": "42\n"},
			"unified/docker/" + id + "/cgroup.procs", ""},
		{"file does not list the pid", "0::/docker/" + id + "\n",
			map[string]string{"docker/" + id + "/cgroup.procs": "41\n"}, "", "no cgroup.procs listing PID 42"},
		{"path leaves the root", "0::/../../etc\n", nil, "", "no cgroup line"},
		{"no line", "", nil, "", "no cgroup line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proc, root := t.TempDir(), t.TempDir()
			os.MkdirAll(filepath.Join(proc, "42"), 0o755)
			os.WriteFile(filepath.Join(proc, "42", "cgroup"), []byte(tt.cgroup), 0o644)
			for p, body := range tt.files {
				os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
				os.WriteFile(filepath.Join(root, p), []byte(body), 0o644)
			}
			got, err := CgroupProcs(proc, root, 42)
			if tt.want != "" {
				if err != nil || got != filepath.Join(root, tt.want) {
					t.Fatalf("CgroupProcs = %q, %v; want %s", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("CgroupProcs = %q, %v; want an error with %q", got, err, tt.errHas)
			}
		})
	}
}

// On this host the test process's own cgroup lists it (skipped where no
// cgroup file system is mounted).
func TestCgroupProcsSelf(t *testing.T) {
	if _, err := os.Stat(DefaultCgroupRoot); err != nil {
		t.Skip("no cgroup file system mounted:", err)
	}
	p, err := CgroupProcs("/proc", DefaultCgroupRoot, os.Getpid())
	if err != nil {
		t.Skip("this process's cgroup is not visible here:", err)
	}
	if ok, err := listsPID(p, os.Getpid()); !ok || err != nil {
		t.Errorf("%s does not list this process: %v", p, err)
	}
}
