package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// The host's Node and the shared libraries it needs, for the offline
// FROM scratch Node image (buildNodeOffline).

// HostNodeFiles collects the host's Node for a FROM scratch image: the
// binary (found on PATH, symlinks resolved) at usr/bin/node, its shared
// libraries and loader as `ldd` lists them, /etc/passwd and /etc/group with
// root and nobody, and /data and /tmp (1777). It returns the files, the
// output of `node --version` and the binary's host path.
func HostNodeFiles(ctx context.Context) (files []File, version, nodePath string, err error) {
	nodePath, err = exec.LookPath("node")
	if err != nil {
		return nil, "", "", fmt.Errorf("node target: no Node image present and no node on this host: %w", err)
	}
	resolved, err := filepath.EvalSymlinks(nodePath)
	if err != nil {
		return nil, "", "", fmt.Errorf("node target: %w", err)
	}
	vctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(vctx, resolved, "--version").Output()
	if err != nil {
		return nil, "", "", fmt.Errorf("node target: %s --version: %w", resolved, err)
	}
	version = strings.TrimSpace(string(out))
	bin, err := os.ReadFile(resolved)
	if err != nil {
		return nil, "", "", fmt.Errorf("node target: %w", err)
	}
	files = []File{
		{Path: "usr/bin/node", Mode: 0o755, Data: bin},
		{Path: "etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n")},
		{Path: "etc/group", Mode: 0o644, Data: []byte("root:x:0:\nnogroup:x:65534:\n")},
		{Path: "data", Mode: 0o1777, Dir: true},
		{Path: "tmp", Mode: 0o1777, Dir: true},
	}
	lddOut, err := exec.CommandContext(vctx, "ldd", resolved).Output()
	if err != nil {
		// A static binary makes ldd exit 1 ("not a dynamic executable").
		if !strings.Contains(string(lddOut), "not a dynamic") && !isExit(err, 1) {
			return nil, "", "", fmt.Errorf("node target: ldd %s: %w", resolved, err)
		}
	}
	seen := map[string]bool{"usr/bin/node": true}
	for _, lib := range LddPaths(string(lddOut)) {
		libFiles, err := libraryFiles(lib, seen)
		if err != nil {
			return nil, "", "", fmt.Errorf("node target: %w", err)
		}
		files = append(files, libFiles...)
	}
	return files, version, nodePath, nil
}

// libraryFiles is a library's real content at the path ldd printed, plus a
// symlink to it at the resolved path when that differs (both lookups work).
func libraryFiles(lib string, seen map[string]bool) ([]File, error) {
	p := strings.TrimPrefix(path.Clean(lib), "/")
	if seen[p] {
		return nil, nil
	}
	resolved, err := filepath.EvalSymlinks(lib)
	if err != nil {
		return nil, fmt.Errorf("library %s: %w", lib, err)
	}
	st, err := os.Stat(resolved)
	if err != nil {
		return nil, fmt.Errorf("library %s: %w", lib, err)
	}
	data, err := os.ReadFile(resolved)
	if err != nil {
		return nil, fmt.Errorf("library %s: %w", lib, err)
	}
	seen[p] = true
	out := []File{{Path: p, Mode: int64(st.Mode().Perm()), Data: data}}
	rp := strings.TrimPrefix(path.Clean(resolved), "/")
	if !seen[rp] && !pathUnder(p, rp) {
		seen[rp] = true
		out = append(out, File{Path: rp, Mode: 0o777, Link: "/" + p})
	}
	return out, nil
}

// pathUnder reports whether one of the paths is a directory prefix of the
// other (a symlink there would clash with a directory).
func pathUnder(a, b string) bool {
	return strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

var lddLine = regexp.MustCompile(`(?:=>\s*)?(/\S+)\s+\(0x[0-9a-fA-F]+\)`)

// LddPaths extracts the absolute library paths from ldd's output, in
// order: "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" and
// "/lib64/ld-linux-x86-64.so.2 (0x...)" give their paths; the vDSO and
// "not found" lines give none.
func LddPaths(out string) []string {
	var paths []string
	for _, line := range strings.Split(out, "\n") {
		if m := lddLine.FindStringSubmatch(line); m != nil {
			paths = append(paths, m[1])
		}
	}
	return paths
}
