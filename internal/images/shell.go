package images

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// ShellImageName is the repository of shell-form target images.
const ShellImageName = "shutdownlab/target-shell"

// Labels set on shell-form images.
const (
	// LabelShellBase is the image the shell-form image wraps.
	LabelShellBase = "shutdownlab.shell_base"
	// LabelShellCommand is the command the shell runs (`sh -c` argument).
	LabelShellCommand = "shutdownlab.shell_command"
)

// shellLayout versions the shell image layout (bump to invalidate tags).
const shellLayout = "shell-1"

// ShellCommand is the `/bin/sh -c` argument that runs argv with the shell
// staying the app's parent: the words, quoted for the shell, followed by
// "; exit $?". Some dash versions exec the last simple command of -c in
// place of the shell (the app would then be PID 1 and get the signal); a
// command after the app rules that out on every version, the way `npm
// start` keeps npm and its shell in front of the app.
func ShellCommand(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = shellQuote(a)
	}
	return strings.Join(words, " ") + "; exit $?"
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_/.:=,@%+-]+$`)

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HostShellFiles collects the host's /bin/sh for an image: the resolved
// binary (dash on Debian) at bin/sh and every library `ldd` lists for it,
// at the paths ldd prints (plus a symlink at the resolved path when it
// differs). It returns the files and the binary's resolved host path.
func HostShellFiles(ctx context.Context) ([]File, string, error) {
	resolved, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		return nil, "", fmt.Errorf("shell image: %w", err)
	}
	bin, err := os.ReadFile(resolved)
	if err != nil {
		return nil, "", fmt.Errorf("shell image: %w", err)
	}
	files := []File{{Path: "bin/sh", Mode: 0o755, Data: bin}}
	lctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(lctx, "ldd", resolved).Output()
	if err != nil && !strings.Contains(string(out), "not a dynamic") && !isExit(err, 1) {
		return nil, "", fmt.Errorf("shell image: ldd %s: %w", resolved, err)
	}
	seen := map[string]bool{"bin/sh": true}
	for _, lib := range LddPaths(string(out)) {
		lf, err := libraryFiles(lib, seen)
		if err != nil {
			return nil, "", fmt.Errorf("shell image: %w", err)
		}
		files = append(files, lf...)
	}
	return files, resolved, nil
}

// BuildShellTarget builds (or reuses, by content hash) the shell-form
// variant of the local image base: FROM base, plus the host's /bin/sh and
// its libraries (HostShellFiles; an existing /bin/sh in base is replaced, so
// every shell-form image runs the same shell), with
// ENTRYPOINT ["/bin/sh", "-c", ShellCommand(base's entrypoint + cmd)]. The
// shell is then the container's process (PID 1, or tini's child with
// --init) and the app its child. The tag hashes base's image id, the
// Dockerfile and the files. eng must be a *docker.Engine (it inspects base).
func BuildShellTarget(ctx context.Context, eng Engine, base string, log io.Writer) (string, error) {
	cp, ok := eng.(clientProvider)
	if !ok {
		return "", fmt.Errorf("shell image: wrapping %s needs a *docker.Engine", base)
	}
	ins, err := cp.Client().ImageInspect(ctx, base)
	if err != nil {
		return "", fmt.Errorf("shell image: base image %s: %w", base, err)
	}
	var argv []string
	if c := ins.Config; c != nil {
		argv = append(slices.Clone(c.Entrypoint), c.Cmd...)
	}
	if len(argv) == 0 {
		return "", fmt.Errorf("shell image: %s has no entrypoint or cmd to run behind a shell", base)
	}
	files, shPath, err := HostShellFiles(ctx)
	if err != nil {
		return "", err
	}
	rootfs, err := rootfsTar(files)
	if err != nil {
		return "", err
	}
	command := ShellCommand(argv)
	dockerfile := fmt.Sprintf("FROM %s\nADD rootfs.tar /\nENTRYPOINT %s\n", base, jsonArray([]string{"/bin/sh", "-c", command}))
	labels := map[string]string{docker.LabelImage: "1", LabelShellBase: base, LabelShellCommand: command}
	h := sha256.New()
	fmt.Fprintf(h, "%s\nbase %s\n%s", shellLayout, ins.ID, dockerfile)
	h.Write(rootfs)
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		fmt.Fprintf(h, "label %s=%s\n", k, labels[k])
	}
	ref := ShellImageName + ":" + hex.EncodeToString(h.Sum(nil))[:16]
	exists, err := eng.ImageExists(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("shell image: %w", err)
	}
	if exists {
		logf(log, "using cached %s (%s behind %s -c)\n", ref, base, shPath)
		return ref, nil
	}
	buildCtx, err := contextTar(dockerfile, rootfs)
	if err != nil {
		return "", err
	}
	t0 := time.Now()
	if err := eng.BuildImage(ctx, bytes.NewReader(buildCtx), ref, labels, nil); err != nil {
		return "", fmt.Errorf("shell image: %w", err)
	}
	logf(log, "built %s (%s behind %s -c %q) in %s\n", ref, base, shPath, command, round(time.Since(t0)))
	return ref, nil
}
