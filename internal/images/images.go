// Package images builds shutdownlab's container images offline: static Go
// binaries cross-compiled for the daemon's architecture and placed in
// FROM scratch images through an in-memory build context, and images
// assembled from programs installed on this host (Node, PostgreSQL, and the
// stock-server fixtures: StockServers lists them with their documented stop
// signals, StockFixture builds one). Images are tagged with a content hash
// of their inputs, so an unchanged image is never rebuilt.
package images

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// Engine is the part of *docker.Engine this package uses.
type Engine interface {
	Info(ctx context.Context) (docker.Info, error)
	ImageExists(ctx context.Context, ref string) (bool, error)
	BuildImage(ctx context.Context, tarContext io.Reader, tag string, labels map[string]string, out io.Writer) error
}

// Spec describes a FROM scratch image holding one Go binary.
type Spec struct {
	// Name is the image repository, e.g. "shutdownlab/target"; the tag is a
	// content hash.
	Name string
	// Package is the Go package to compile, relative to ModuleDir (e.g.
	// "./cmd/target").
	Package string
	// ModuleDir is the module root; "" (and no Module) finds it by walking
	// up from the working directory to go.mod.
	ModuleDir string
	// Module, when set, is the module tree to compile instead of
	// ModuleDir, held in memory (EmbeddedModule: the sources built into
	// this binary; CaddyModule). Sources then default to the files
	// Package can read (Module.PackageSources).
	// On a cache miss it is written to a temporary directory, compiled
	// there and removed, so the working directory plays no part.
	Module Module
	// Args are fixed arguments after the binary in the exec-form
	// ENTRYPOINT ["/app", Args...]; a container's Cmd is appended to them.
	Args []string
	// Files are extra files or directories for the image's root file
	// system.
	Files []File
	// Labels are extra image labels (LabelImage=1 is always set).
	Labels map[string]string
	// Log receives one progress line per image (nil: silent).
	Log io.Writer
	// BuildOutput receives the builder's own output (nil: discarded).
	BuildOutput io.Writer
	// Sources, when set, are the files (relative to the module root) that fully
	// determine the binary, e.g. go.mod, go.sum and main.go of a module
	// whose other code comes from pinned dependencies. The tag is then a
	// hash of those files, the Go version, the architecture, Package,
	// Args and Files, checked before compiling: a cached image costs no
	// go build at all. For binaries that take minutes to link (Caddy).
	Sources []string
}

// Build compiles spec.Package for linux and the engine's architecture
// (CGO_ENABLED=0, -trimpath, -ldflags "-s -w"), then builds a scratch image
// with the binary at /app (0755), writable /data and /tmp directories
// (1777) and ENTRYPOINT ["/app", Args...]. The tag is
// <Name>:<first 16 hex digits of the sha256 of the image's inputs>. When
// that tag already exists, nothing is built and built is false.
func Build(ctx context.Context, eng Engine, spec Spec) (ref string, built bool, err error) {
	if spec.Name == "" || spec.Package == "" {
		return "", false, errors.New("images: Spec needs Name and Package")
	}
	info, err := eng.Info(ctx)
	if err != nil {
		return "", false, fmt.Errorf("images: %w", err)
	}
	dir := spec.ModuleDir
	if spec.Module != nil {
		if len(spec.Sources) == 0 {
			if spec.Sources, err = spec.Module.PackageSources(spec.Package); err != nil {
				return "", false, err
			}
		}
	} else if dir == "" {
		if dir, err = ModuleRoot(); err != nil {
			return "", false, err
		}
	}
	var srcRef string
	if len(spec.Sources) > 0 {
		if srcRef, err = sourceRef(ctx, dir, spec, info.Arch); err != nil {
			return "", false, err
		}
		ok, err := eng.ImageExists(ctx, srcRef)
		if err != nil {
			return "", false, fmt.Errorf("images: %w", err)
		}
		if ok {
			if spec.Log != nil {
				fmt.Fprintf(spec.Log, "using cached %s (sources unchanged)\n", srcRef)
			}
			return srcRef, false, nil
		}
	}
	if spec.Module != nil {
		// Only the files the tag hashes: a file it missed fails the
		// build instead of making a stale image look current.
		if dir, err = writeModule(spec.Module.subset(spec.Sources)); err != nil {
			return "", false, err
		}
		defer os.RemoveAll(dir)
	}
	t0 := time.Now()
	bin, err := GoBuild(ctx, dir, spec.Package, info.Arch)
	if err != nil {
		return "", false, err
	}
	goDur := time.Since(t0)
	files := append([]File{
		{Path: "app", Mode: 0o755, Data: bin},
		{Path: "data", Mode: 0o1777, Dir: true},
		{Path: "tmp", Mode: 0o1777, Dir: true},
	}, spec.Files...)
	ref, built, dockerDur, err := buildScratch(ctx, eng, ScratchSpec{
		Name:        spec.Name,
		Files:       files,
		Entrypoint:  append([]string{"/app"}, spec.Args...),
		Labels:      spec.Labels,
		BuildOutput: spec.BuildOutput,
		Ref:         srcRef,
	})
	if err != nil {
		return "", false, err
	}
	if spec.Log != nil {
		if built {
			fmt.Fprintf(spec.Log, "built %s (go build %s, docker build %s)\n", ref, round(goDur), round(dockerDur))
		} else {
			fmt.Fprintf(spec.Log, "using cached %s (go build %s)\n", ref, round(goDur))
		}
	}
	return ref, built, nil
}

// sourceRef is <Name>:src-<16 hex digits> for a Spec with Sources.
func sourceRef(ctx context.Context, dir string, spec Spec, goarch string) (string, error) {
	ver, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("images: go env GOVERSION: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "go %s\narch %s\npkg %s\nargs %q\n", strings.TrimSpace(string(ver)), goarch, spec.Package, spec.Args)
	for _, src := range spec.Sources {
		b, err := readSource(spec, dir, src)
		if err != nil {
			return "", fmt.Errorf("images: source %w", err)
		}
		fmt.Fprintf(h, "file %s %d\n", src, len(b))
		h.Write(b)
	}
	for _, f := range spec.Files {
		fmt.Fprintf(h, "extra %s %o %v %q %d\n", f.Path, f.Mode, f.Dir, f.Link, len(f.Data))
		h.Write(f.Data)
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Labels)) {
		fmt.Fprintf(h, "label %s=%s\n", k, spec.Labels[k])
	}
	return spec.Name + ":src-" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

func round(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }

// GoBuild cross-compiles a Go package of the module in moduleDir as a static
// linux/goarch binary and returns its bytes. The build is reproducible
// (-trimpath, -buildvcs=false), so unchanged sources give identical bytes.
func GoBuild(ctx context.Context, moduleDir, pkg, goarch string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "shutdownlab-gobuild-")
	if err != nil {
		return nil, fmt.Errorf("go build: %w", err)
	}
	defer os.RemoveAll(tmp)
	outPath := filepath.Join(tmp, "app")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", outPath, pkg)
	cmd.Dir = moduleDir
	// GOWORK=off: a go.work of the caller's must not change what is built.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch, "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build %s (GOARCH=%s): %w\n%s", pkg, goarch, err, strings.TrimSpace(stderr.String()))
	}
	bin, err := os.ReadFile(outPath)
	if err != nil {
		return nil, fmt.Errorf("go build %s: %w", pkg, err)
	}
	return bin, nil
}

// ModuleRoot walks up from the working directory to the nearest directory
// holding a go.mod file.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("module root: no go.mod found above the working directory")
		}
		dir = parent
	}
}
