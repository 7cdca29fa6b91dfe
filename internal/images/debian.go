package images

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// HostBinary is a dynamically linked program or shared object copied from
// this host into an image, together with every library `ldd` lists for it.
type HostBinary struct {
	// Host is the file's path on this host; symlinks are resolved.
	Host string
	// Path is where the file goes in the image, relative to / ("" puts it
	// at Host's path).
	Path string
	// Mode holds the file's permission bits in the image (0: 0755).
	Mode int64
}

// HostImage describes a FROM scratch image assembled offline from programs
// installed on this host (typically from Debian packages): the programs,
// their ldd libraries and the loader, plus data files.
type HostImage struct {
	// Name is the image repository; the tag is a content hash of
	// everything below (the Dockerfile, every file's path, mode and bytes,
	// and the labels), so a warm call builds nothing.
	Name string
	// Binaries are copied with their libraries (HostFiles).
	Binaries []HostBinary
	// Files are further files: configuration, data, directories.
	Files []File
	// Entrypoint is the exec-form ENTRYPOINT; Cmd the optional CMD.
	Entrypoint []string
	Cmd        []string
	// Env is a list of KEY=value set in the image.
	Env []string
	// Base, when set, is a local image to build on instead of scratch
	// (ScratchSpec.Base), e.g. the project's Caddy image.
	Base string
	// Labels are extra image labels (LabelImage=1 is always set).
	Labels map[string]string
}

// BuildHostImage builds (or reuses, by content hash) spec's image. The
// host's binaries only run on a daemon of the same architecture, so any
// other daemon is refused with an error saying so. built is false when
// the tag was present already.
func BuildHostImage(ctx context.Context, eng Engine, spec HostImage, log io.Writer) (ref string, built bool, err error) {
	t0 := time.Now()
	info, err := eng.Info(ctx)
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", spec.Name, err)
	}
	if info.Arch != runtime.GOARCH {
		return "", false, fmt.Errorf("%s: this host's binaries are %s but the Docker daemon runs %s: no offline image possible",
			spec.Name, runtime.GOARCH, info.Arch)
	}
	files, err := HostFiles(ctx, spec.Binaries)
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", spec.Name, err)
	}
	files = append(files, spec.Files...)
	size := 0
	for _, f := range files {
		size += len(f.Data)
	}
	ref, built, dur, err := buildScratch(ctx, eng, ScratchSpec{
		Name: spec.Name, Base: spec.Base, Files: files, Entrypoint: spec.Entrypoint, Cmd: spec.Cmd,
		Env: spec.Env, Labels: spec.Labels,
	})
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", spec.Name, err)
	}
	if built {
		logf(log, "built %s (%d files, %.1f MB; docker build %s, total %s)\n",
			ref, len(files), float64(size)/1e6, round(dur), round(time.Since(t0)))
	} else {
		logf(log, "using cached %s (checked in %s)\n", ref, round(time.Since(t0)))
	}
	return ref, built, nil
}

// HostFiles reads binaries from this host for an image: each binary's
// content at its image path, and every library `ldd` lists for any of
// them (real content at the path ldd printed, plus a symlink at the
// resolved path when that differs), each library once. A static binary
// (ldd: "not a dynamic executable") brings no libraries.
func HostFiles(ctx context.Context, binaries []HostBinary) ([]File, error) {
	var files []File
	seen := map[string]bool{}
	for _, b := range binaries {
		resolved, err := filepath.EvalSymlinks(b.Host)
		if err != nil {
			return nil, fmt.Errorf("host file %s: %w", b.Host, err)
		}
		data, err := os.ReadFile(resolved)
		if err != nil {
			return nil, fmt.Errorf("host file %s: %w", b.Host, err)
		}
		p := b.Path
		if p == "" {
			p = b.Host
		}
		p = strings.TrimPrefix(path.Clean("/"+p), "/")
		mode := b.Mode
		if mode == 0 {
			mode = 0o755
		}
		if !seen[p] {
			seen[p] = true
			files = append(files, File{Path: p, Mode: mode, Data: data})
		}
		libs, err := lddLibraries(ctx, resolved)
		if err != nil {
			return nil, err
		}
		for _, lib := range libs {
			lf, err := libraryFiles(lib, seen)
			if err != nil {
				return nil, fmt.Errorf("host file %s: %w", b.Host, err)
			}
			files = append(files, lf...)
		}
	}
	return files, nil
}

// lddLibraries runs `ldd file` (bounded to 20 s) and returns the library
// paths it prints; none for a static binary.
func lddLibraries(ctx context.Context, file string) ([]string, error) {
	lctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(lctx, "ldd", file).Output()
	if err != nil && !strings.Contains(string(out), "not a dynamic") && !isExit(err, 1) {
		return nil, fmt.Errorf("host file: ldd %s: %w", file, err)
	}
	return LddPaths(string(out)), nil
}

// EtcFiles are a minimal /etc for programs that look users up (getpwnam):
// passwd and group with root and nobody/nogroup, and an nsswitch.conf that
// resolves both from those files.
func EtcFiles() []File {
	return []File{
		{Path: "etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n")},
		{Path: "etc/group", Mode: 0o644, Data: []byte("root:x:0:\nnogroup:x:65534:\n")},
		{Path: "etc/nsswitch.conf", Mode: 0o644, Data: []byte("passwd: files\ngroup: files\nhosts: files\n")},
	}
}
