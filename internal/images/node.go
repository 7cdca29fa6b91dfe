package images

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// NodeImageName is the repository of the Node target image.
const NodeImageName = "shutdownlab/target-node"

// NodeServerFile is the Node target's program, relative to the module root.
const NodeServerFile = "targetapp/node/server.js"

// NodeAppFiles are the Node target's programs and modules, relative to the
// module root; the image holds each in /app under its base name
// (/app/server.js the entrypoint, /app/events.js its /events stream,
// /app/cluster.js the cluster target).
var NodeAppFiles = []string{NodeServerFile, "targetapp/node/events.js", "targetapp/node/cluster.js"}

// NodeWSDir is where Debian's node-ws package installs the ws library on
// the host; the image carries a copy in /app/node_modules/ws.
const NodeWSDir = "/usr/share/nodejs/ws"

// NodePreferredBase is the official image the published measurements used;
// BuildNodeTarget prefers it when it is present locally.
const NodePreferredBase = "node:23-alpine"

// Labels set on Node target images.
const (
	// LabelNodeVersion holds the Node version in the image ("v20.20.2").
	LabelNodeVersion = "shutdownlab.node_version"
	// LabelNodeBase says where Node came from: "host:/usr/bin/node" or the
	// official base image ("node:23-alpine").
	LabelNodeBase = "shutdownlab.node_base"
)

// nodeLayout versions the offline image layout: bump it when the file list
// or entrypoint logic changes, so old cached tags are not reused.
const nodeLayout = "node-offline-2"

// clientProvider is implemented by *docker.Engine; BuildNodeTarget uses it
// to look for official node:* images. Engines without it get the offline
// path.
type clientProvider interface {
	Client() *client.Client
}

// BuildNodeTarget builds (or reuses, by content hash) the Node target image:
// NodeAppImageFiles (server.js, events.js, cluster.js from moduleDir; "":
// the copies built into this binary; and the host's ws library) run as
// `node /app/server.js` in exec form, so Node is PID 1 unless the container
// runs with --init, with writable /data and /tmp (1777).
//
// When an official node:* image exists locally (NodePreferredBase first,
// else the first node:* tag in sorted order), the image is
// BuildNodeTargetFrom's, FROM it. Otherwise it is BuildNodeTargetOffline's
// image of the host's own Node. Nothing is ever pulled. log receives one
// progress line (nil: silent).
func BuildNodeTarget(ctx context.Context, eng Engine, moduleDir string, log io.Writer) (ref, nodeVersion string, err error) {
	if cp, ok := eng.(clientProvider); ok {
		base, err := officialNodeImage(ctx, cp.Client())
		if err != nil {
			return "", "", err
		}
		if base != "" {
			return BuildNodeTargetFrom(ctx, eng, base, moduleDir, log)
		}
	}
	return BuildNodeTargetOffline(ctx, eng, moduleDir, log)
}

// BuildNodeTargetOffline builds (or reuses) the Node target image from the
// host's Node: the binary found on PATH (placed at /usr/bin/node), every
// library `ldd` lists for it (real contents at the printed path, plus a
// symlink at the resolved path when it differs), the dynamic loader, a
// minimal /etc/passwd and /etc/group, and NodeAppImageFiles, in a FROM scratch
// image with ENTRYPOINT ["/usr/bin/node", "/app/server.js"]. nodeVersion is
// `node --version` of the host. The tag is "host-" plus a hash of all those
// files, computed before any tar is built, so a warm call only reads and
// hashes the files (~100 MB).
func BuildNodeTargetOffline(ctx context.Context, eng Engine, moduleDir string, log io.Writer) (ref, nodeVersion string, err error) {
	app, err := NodeAppImageFiles(moduleDir, NodeWSDir)
	if err != nil {
		return "", "", err
	}
	return buildNodeOffline(ctx, eng, app, log)
}

// NodeAppImageFiles is what every Node target image holds under /app: the
// NodeAppFiles (from moduleDir, or from the sources built into this binary
// when moduleDir is "") and the ws library read from wsDir (NodeWSDir) into
// app/node_modules/ws, where server.js's require('ws') finds it.
func NodeAppImageFiles(moduleDir, wsDir string) ([]File, error) {
	var files []File
	for _, name := range NodeAppFiles {
		var b []byte
		var err error
		if moduleDir == "" {
			b, err = EmbeddedFile(name)
		} else {
			b, err = os.ReadFile(filepath.Join(moduleDir, name))
		}
		if err != nil {
			return nil, fmt.Errorf("node target: %w", err)
		}
		files = append(files, File{Path: "app/" + path.Base(name), Mode: 0o644, Data: b})
	}
	ws, err := nodeWSFiles(wsDir)
	if err != nil {
		return nil, err
	}
	return append(files, ws...), nil
}

// nodeWSFiles reads the ws library's regular files (symlinks followed)
// under dir into app/node_modules/ws.
func nodeWSFiles(dir string) ([]File, error) {
	fail := func(err error) ([]File, error) {
		return nil, fmt.Errorf("node target: the ws library for /events: %w (install it: apt-get install node-ws)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		return fail(err)
	}
	var files []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files = append(files, File{Path: "app/node_modules/ws/" + filepath.ToSlash(rel), Mode: 0o644, Data: b})
		return nil
	})
	if err != nil {
		return fail(err)
	}
	return files, nil
}

// officialNodeImage returns the local node:* image to build on ("" if
// none): NodePreferredBase when present, else the first tag in sorted order.
func officialNodeImage(ctx context.Context, cli *client.Client) (string, error) {
	res, err := cli.ImageList(ctx, client.ImageListOptions{})
	if err != nil {
		return "", fmt.Errorf("node target: image list: %w", err)
	}
	var tags []string
	for _, im := range res.Items {
		for _, t := range im.RepoTags {
			t = strings.TrimPrefix(strings.TrimPrefix(t, "docker.io/"), "library/")
			if strings.HasPrefix(t, "node:") {
				tags = append(tags, t)
			}
		}
	}
	if len(tags) == 0 {
		return "", nil
	}
	slices.Sort(tags)
	if slices.Contains(tags, NodePreferredBase) {
		return NodePreferredBase, nil
	}
	return tags[0], nil
}

// BuildNodeTargetFrom builds (or reuses) the Node target image FROM base, a
// local image with `node` on its PATH (an official node:* image, or a
// user's own): NodeAppImageFiles and a 1777 /data are added, the entrypoint is
// ["node", "/app/server.js"]. nodeVersion is base's NODE_VERSION
// environment variable (official images set it) or its LabelNodeVersion
// label, else "unknown". The tag hashes base's image id, so a rebuilt base
// gives a new tag. eng must be a *docker.Engine (it inspects base).
func BuildNodeTargetFrom(ctx context.Context, eng Engine, base, moduleDir string, log io.Writer) (ref, nodeVersion string, err error) {
	app, err := NodeAppImageFiles(moduleDir, NodeWSDir)
	if err != nil {
		return "", "", err
	}
	cp, ok := eng.(clientProvider)
	if !ok {
		return "", "", fmt.Errorf("node target: building FROM %s needs a *docker.Engine", base)
	}
	ins, err := cp.Client().ImageInspect(ctx, base)
	if err != nil {
		return "", "", fmt.Errorf("node target: base image %s: %w", base, err)
	}
	version := "unknown"
	if c := ins.Config; c != nil {
		if v := c.Labels[LabelNodeVersion]; v != "" {
			version = v
		}
		for _, kv := range c.Env {
			if v, ok := strings.CutPrefix(kv, "NODE_VERSION="); ok && v != "" {
				version = "v" + strings.TrimPrefix(v, "v")
			}
		}
	}
	return buildNodeOnBase(ctx, eng, base+"@"+ins.ID, version, app, log)
}

// buildNodeOnBase builds FROM an official image (base is "tag@imageID": the
// id goes into the hash, the tag into the Dockerfile).
func buildNodeOnBase(ctx context.Context, eng Engine, base, version string, app []File, log io.Writer) (string, string, error) {
	tag, id, _ := strings.Cut(base, "@")
	rootfs, err := rootfsTar(append(slices.Clone(app), File{Path: "data", Mode: 0o1777, Dir: true}))
	if err != nil {
		return "", "", err
	}
	dockerfile := fmt.Sprintf("FROM %s\nADD rootfs.tar /\nENTRYPOINT [\"node\", \"/app/server.js\"]\n", tag)
	labels := map[string]string{docker.LabelImage: "1", LabelNodeVersion: version, LabelNodeBase: tag}
	h := sha256.New()
	fmt.Fprintf(h, "base %s\n%s", id, dockerfile)
	h.Write(rootfs)
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		fmt.Fprintf(h, "label %s=%s\n", k, labels[k])
	}
	ref := NodeImageName + ":" + hex.EncodeToString(h.Sum(nil))[:16]
	ok, err := eng.ImageExists(ctx, ref)
	if err != nil {
		return "", "", fmt.Errorf("node target: %w", err)
	}
	if ok {
		logf(log, "using cached %s (node %s, FROM %s)\n", ref, version, tag)
		return ref, version, nil
	}
	buildCtx, err := contextTar(dockerfile, rootfs)
	if err != nil {
		return "", "", err
	}
	t0 := time.Now()
	if err := eng.BuildImage(ctx, bytes.NewReader(buildCtx), ref, labels, nil); err != nil {
		return "", "", fmt.Errorf("node target: %w", err)
	}
	logf(log, "built %s (node %s, FROM %s) in %s\n", ref, version, tag, round(time.Since(t0)))
	return ref, version, nil
}

func buildNodeOffline(ctx context.Context, eng Engine, app []File, log io.Writer) (string, string, error) {
	t0 := time.Now()
	info, err := eng.Info(ctx)
	if err != nil {
		return "", "", fmt.Errorf("node target: %w", err)
	}
	if info.Arch != runtime.GOARCH {
		return "", "", fmt.Errorf("node target: the host's node is %s but the Docker daemon runs %s: no offline image possible", runtime.GOARCH, info.Arch)
	}
	files, version, nodePath, err := HostNodeFiles(ctx)
	if err != nil {
		return "", "", err
	}
	files = append(files, app...)
	entry := []string{"/usr/bin/node", "/app/server.js"}
	labels := map[string]string{LabelNodeVersion: version, LabelNodeBase: "host:" + nodePath}

	h := sha256.New()
	fmt.Fprintf(h, "%s\nentrypoint %q\n", nodeLayout, entry)
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		fmt.Fprintf(h, "label %s=%s\n", k, labels[k])
	}
	var size int
	for _, f := range slices.SortedFunc(slices.Values(files), func(a, b File) int { return strings.Compare(a.Path, b.Path) }) {
		fmt.Fprintf(h, "file %s %o %v %q %d\n", f.Path, f.Mode, f.Dir, f.Link, len(f.Data))
		h.Write(f.Data)
		size += len(f.Data)
	}
	ref := NodeImageName + ":host-" + hex.EncodeToString(h.Sum(nil))[:16]
	ok, err := eng.ImageExists(ctx, ref)
	if err != nil {
		return "", "", fmt.Errorf("node target: %w", err)
	}
	if ok {
		logf(log, "using cached %s (node %s from %s; checked in %s)\n", ref, version, nodePath, round(time.Since(t0)))
		return ref, version, nil
	}
	_, _, dur, err := buildScratch(ctx, eng, ScratchSpec{
		Name: NodeImageName, Files: files, Entrypoint: entry, Labels: labels, Ref: ref,
	})
	if err != nil {
		return "", "", fmt.Errorf("node target: %w", err)
	}
	logf(log, "built %s (node %s from %s, %d files, %.1f MB; docker build %s, total %s)\n",
		ref, version, nodePath, len(files), float64(size)/1e6, round(dur), round(time.Since(t0)))
	return ref, version, nil
}

func isExit(err error, code int) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == code
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}
