package images

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// File is one entry of an image's root file system.
type File struct {
	// Path is relative to / (a leading slash is ignored).
	Path string
	// Mode holds the permission bits (and sticky bit), e.g. 0o755, 0o1777.
	Mode int64
	// Dir makes the entry a directory; otherwise Data is the file content.
	Dir  bool
	Data []byte
	// Link, when set, makes the entry a symlink to Link.
	Link string
}

// ScratchSpec describes a FROM scratch image built from a list of files.
type ScratchSpec struct {
	// Name is the image repository; the tag is a content hash.
	Name string
	// Base, when set, is a local image to build on instead of scratch
	// (never pulled: it must exist on the engine, e.g. one of the
	// project's own images). Its reference is part of the content hash,
	// so it should be a content-hash tag itself.
	Base string
	// Files make up the root file system; parent directories are created
	// as needed (0755).
	Files []File
	// Entrypoint is the exec-form ENTRYPOINT; Cmd the optional CMD.
	Entrypoint []string
	Cmd        []string
	// Env is a list of KEY=value set in the image.
	Env []string
	// User, when set, is the image's USER ("uid[:gid]"): the process's
	// user unless a container overrides it.
	User string
	// StopSignal, when set, is the image's STOPSIGNAL (e.g. "SIGINT").
	StopSignal string
	// Labels are extra image labels (LabelImage=1 is always set).
	Labels map[string]string
	// BuildOutput receives the builder's output (nil: discarded).
	BuildOutput io.Writer
	// Ref, when set, is the image reference to use instead of one tagged
	// with the content hash (Build sets it for Spec.Sources).
	Ref string
}

// BuildScratch builds (unless its content-hash tag exists already) a FROM
// scratch image from spec.Files. The files travel as a rootfs.tar inside the
// build context, which the Dockerfile's ADD extracts at /, so directory
// modes (such as a 1777 /data) survive without any RUN step.
func BuildScratch(ctx context.Context, eng Engine, spec ScratchSpec) (ref string, built bool, err error) {
	ref, built, _, err = buildScratch(ctx, eng, spec)
	return ref, built, err
}

func buildScratch(ctx context.Context, eng Engine, spec ScratchSpec) (string, bool, time.Duration, error) {
	if spec.Name == "" {
		return "", false, 0, errors.New("images: ScratchSpec needs a Name")
	}
	rootfs, err := rootfsTar(spec.Files)
	if err != nil {
		return "", false, 0, err
	}
	dockerfile := scratchDockerfile(spec)
	labels := map[string]string{docker.LabelImage: "1"}
	maps.Copy(labels, spec.Labels)
	labels[docker.LabelImage] = "1"

	h := sha256.New()
	h.Write([]byte(dockerfile))
	h.Write(rootfs) // file list, modes and contents, deterministic
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		fmt.Fprintf(h, "label %s=%s\n", k, labels[k])
	}
	ref := spec.Name + ":" + hex.EncodeToString(h.Sum(nil))[:16]
	if spec.Ref != "" {
		ref = spec.Ref
	}

	ok, err := eng.ImageExists(ctx, ref)
	if err != nil {
		return "", false, 0, err
	}
	if ok {
		return ref, false, 0, nil
	}
	buildCtx, err := contextTar(dockerfile, rootfs)
	if err != nil {
		return "", false, 0, err
	}
	t0 := time.Now()
	if err := eng.BuildImage(ctx, bytes.NewReader(buildCtx), ref, labels, spec.BuildOutput); err != nil {
		return "", false, 0, err
	}
	return ref, true, time.Since(t0), nil
}

func scratchDockerfile(spec ScratchSpec) string {
	var b strings.Builder
	base := "scratch"
	if spec.Base != "" {
		base = spec.Base
	}
	fmt.Fprintf(&b, "FROM %s\nADD rootfs.tar /\n", base)
	for _, kv := range spec.Env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "ENV %s=%s\n", k, jsonString(v))
	}
	if spec.User != "" {
		fmt.Fprintf(&b, "USER %s\n", spec.User)
	}
	if spec.StopSignal != "" {
		fmt.Fprintf(&b, "STOPSIGNAL %s\n", spec.StopSignal)
	}
	if len(spec.Entrypoint) > 0 {
		fmt.Fprintf(&b, "ENTRYPOINT %s\n", jsonArray(spec.Entrypoint))
	}
	if len(spec.Cmd) > 0 {
		fmt.Fprintf(&b, "CMD %s\n", jsonArray(spec.Cmd))
	}
	return b.String()
}

func jsonArray(v []string) string { b, _ := json.Marshal(v); return string(b) }

func jsonString(v string) string { b, _ := json.Marshal(v); return string(b) }

// fixedTime is the mtime of every tar entry, so equal inputs give equal
// bytes (and equal tags).
var fixedTime = time.Unix(946684800, 0).UTC() // 2000-01-01

// rootfsTar writes files (sorted, with missing parents) as a tar archive.
func rootfsTar(files []File) ([]byte, error) {
	entries := map[string]File{}
	for _, f := range files {
		p := strings.Trim(path.Clean("/"+f.Path), "/")
		if p == "" || p == "." {
			return nil, fmt.Errorf("images: bad file path %q", f.Path)
		}
		if _, dup := entries[p]; dup {
			return nil, fmt.Errorf("images: duplicate file path %q", f.Path)
		}
		f.Path = p
		entries[p] = f
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, ok := entries[d]; !ok {
				entries[d] = File{Path: d, Dir: true, Mode: 0o755}
			}
		}
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range slices.Sorted(maps.Keys(entries)) {
		f := entries[p]
		h := &tar.Header{Name: p, Mode: f.Mode, ModTime: fixedTime, Format: tar.FormatPAX}
		switch {
		case f.Dir:
			h.Typeflag, h.Name = tar.TypeDir, p+"/"
		case f.Link != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, f.Link
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("images: rootfs tar: %w", err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(f.Data); err != nil {
				return nil, fmt.Errorf("images: rootfs tar: %w", err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("images: rootfs tar: %w", err)
	}
	return buf.Bytes(), nil
}

// contextTar is the build context: Dockerfile and rootfs.tar.
func contextTar(dockerfile string, rootfs []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct {
		name string
		data []byte
	}{{"Dockerfile", []byte(dockerfile)}, {"rootfs.tar", rootfs}} {
		h := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: fixedTime, Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("images: context tar: %w", err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, fmt.Errorf("images: context tar: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("images: context tar: %w", err)
	}
	return buf.Bytes(), nil
}
