package images

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// PostgresImageName is the repository of the PostgreSQL service image.
const PostgresImageName = "shutdownlab/service-postgres"

// Host paths of Debian's postgresql-15 and the command that installs it.
const (
	PostgresBinDir   = "/usr/lib/postgresql/15/bin"
	PostgresLibDir   = "/usr/lib/postgresql/15/lib"
	PostgresShareDir = "/usr/share/postgresql/15"
	ZoneinfoDir      = "/usr/share/zoneinfo"
	PostgresInstall  = "apt-get update -qq && apt-get install -y -qq postgresql-15"
)

// PostgreSQL service image layout.
const (
	// PostgresPort is the TCP port the server listens on (0.0.0.0).
	PostgresPort = 5432
	// PostgresUser is the superuser initdb creates (its password from
	// PostgresPasswordEnv) and PostgresDB the database that always exists.
	PostgresUser = "postgres"
	PostgresDB   = "postgres"
	// PostgresUID is the image's USER (uid:gid 999:999, "postgres" in its
	// /etc/passwd and /etc/group): postgres refuses to run as root.
	PostgresUID = "999:999"
	// PostgresData is the data directory the entrypoint initialises on
	// first start (its parent is 1777, so the non-root user creates it).
	PostgresData = "/var/lib/postgresql/data"
	// PostgresEntrypoint is the image's entrypoint script.
	PostgresEntrypoint = "/usr/local/bin/shutdownlab-postgres"
	// PostgresPasswordEnv names the variable that must hold the
	// superuser's password: the entrypoint refuses to start without it.
	PostgresPasswordEnv = "POSTGRES_PASSWORD"
	// PostgresReadyLog is the line postgres logs once it accepts
	// connections.
	PostgresReadyLog = "database system is ready to accept connections"
)

// Labels set on the PostgreSQL image.
const (
	// LabelPostgresVersion holds `postgres --version` of the host binary
	// ("postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)").
	LabelPostgresVersion = "shutdownlab.postgres_version"
	// LabelPostgresBase says where postgres came from
	// ("host:/usr/lib/postgresql/15/bin").
	LabelPostgresBase = "shutdownlab.postgres_base"
)

// postgresLayout versions the image layout; it is hashed into the tag.
const postgresLayout = "postgres-offline-2"

// PostgresHBA is the pg_hba.conf the entrypoint writes: trust for the
// unix socket inside the container, and a scram-sha-256 password for
// addresses on the container's own networks (samenet: the subnets of its
// interfaces, i.e. the run's Docker network and loopback); every other
// address has no entry and is refused: a peer on the network is no
// superuser by being there.
const PostgresHBA = `# shutdownlab (internal/images/postgres.go): a password on the container networks only.
local all all trust
host  all all samenet scram-sha-256
`

// PostgresEntrypointScript is the image's entrypoint, run by the host's
// /bin/sh (dash) as uid 999. On first start (no PG_VERSION in
// PostgresData) it runs initdb (superuser postgres, UTF8, locale C, TZ
// UTC, no fsync during init) and writes PostgresHBA; then it execs
// postgres in the foreground, so postgres is PID 1 and receives the stop
// signal itself (the postmaster reaps its own backends). The superuser's
// password comes from PostgresPasswordEnv (required; written to a 0600
// file initdb reads, emptied after, and unset before postgres starts).
// initdb needs the shell too: it starts the bootstrap backend through
// popen(3). Arguments
// (the container's Cmd) are appended to postgres's, e.g. "-c",
// "log_min_messages=debug1".
const PostgresEntrypointScript = `#!/bin/sh
# shutdownlab PostgreSQL entrypoint (internal/images/postgres.go).
set -eu
bin=` + PostgresBinDir + `
data=` + PostgresData + `
TZ=${TZ:-UTC}
export TZ
if [ -z "${` + PostgresPasswordEnv + `:-}" ]; then
  echo "shutdownlab-postgres: ` + PostgresPasswordEnv + ` is empty; refusing to start a server without a password" >&2
  exit 64
fi
if [ ! -s "$data/PG_VERSION" ]; then
  echo "shutdownlab-postgres: initialising $data" >&2
  pw="$data.pwfile"
  (umask 077 && printf '%s\n' "$` + PostgresPasswordEnv + `" > "$pw")
  "$bin/initdb" -D "$data" -U ` + PostgresUser + ` -E UTF8 --locale=C --auth-local=trust --auth-host=scram-sha-256 \
    --pwfile="$pw" --no-sync >&2
  : > "$pw" # the image has no rm: emptied instead
  printf '%s' '` + PostgresHBA + `' > "$data/pg_hba.conf"
fi
unset ` + PostgresPasswordEnv + `
exec "$bin/postgres" -D "$data" -c listen_addresses=0.0.0.0 -c port=` + "5432" + ` \
  -c unix_socket_directories=/var/run/postgresql -c jit=off "$@"
`

// PostgresImage describes the PostgreSQL service image, assembled from
// this host's Debian postgresql-15: postgres, initdb and pg_isready with
// their ldd libraries, every extension library in PostgresLibDir but the
// LLVM JIT (jit=off), the share directory (catalog bootstrap files,
// timezonesets, tsearch data), the zoneinfo database (without right/),
// the host's /bin/sh with its libraries, /etc/passwd and /etc/group with
// postgres (999:999), and PostgresEntrypointScript. The image runs as
// PostgresUID with STOPSIGNAL SIGINT (postgres's fast shutdown: roll back
// open transactions, close connections, checkpoint, exit; SIGTERM's
// smart shutdown would wait for every client to disconnect, as the
// official image also avoids). version is `postgres --version`. When a
// path is missing the error names it and PostgresInstall.
func PostgresImage(ctx context.Context) (spec ScratchSpec, binaries []HostBinary, version string, err error) {
	if err := checkHostPaths(PostgresHostPaths); err != nil {
		return ScratchSpec{}, nil, "", err
	}
	if version, err = postgresVersion(ctx); err != nil {
		return ScratchSpec{}, nil, "", err
	}
	for _, b := range []string{"postgres", "initdb", "pg_isready"} {
		binaries = append(binaries, HostBinary{Host: PostgresBinDir + "/" + b})
	}
	libs, err := os.ReadDir(PostgresLibDir)
	if err != nil {
		return ScratchSpec{}, nil, "", fmt.Errorf("postgres image: %w", err)
	}
	for _, l := range libs {
		if strings.HasSuffix(l.Name(), ".so") && !strings.HasPrefix(l.Name(), "llvmjit") {
			binaries = append(binaries, HostBinary{Host: PostgresLibDir + "/" + l.Name(), Mode: 0o644})
		}
	}
	var files []File
	for _, dir := range []string{PostgresShareDir, ZoneinfoDir} {
		tree, err := treeFiles(dir, []string{"right"})
		if err != nil {
			return ScratchSpec{}, nil, "", fmt.Errorf("postgres image: %w", err)
		}
		files = append(files, tree...)
	}
	files = append(files, postgresEtc()...)
	spec = ScratchSpec{
		Name:       PostgresImageName,
		Files:      files,
		Entrypoint: []string{"/bin/sh", PostgresEntrypoint},
		User:       PostgresUID,
		StopSignal: "SIGINT",
		Labels:     map[string]string{LabelPostgresVersion: version, LabelPostgresBase: "host:" + PostgresBinDir},
	}
	return spec, binaries, version, nil
}

// PostgresHostPaths are the host paths PostgresImage needs.
var PostgresHostPaths = []string{
	PostgresBinDir + "/postgres", PostgresBinDir + "/initdb", PostgresBinDir + "/pg_isready",
	PostgresLibDir, PostgresShareDir + "/postgres.bki", ZoneinfoDir + "/UTC",
}

// checkHostPaths fails on the first missing path, naming it and
// PostgresInstall.
func checkHostPaths(paths []string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("postgres image: %s not found on this host; install PostgreSQL 15 with: %s", p, PostgresInstall)
			}
			return fmt.Errorf("postgres image: %w", err)
		}
	}
	return nil
}

// postgresEtc is the image's own files: users, the entrypoint and the
// directories postgres writes to.
func postgresEtc() []File {
	return []File{
		{Path: "etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			"postgres:x:999:999:PostgreSQL administrator:/var/lib/postgresql:/bin/sh\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n")},
		{Path: "etc/group", Mode: 0o644, Data: []byte("root:x:0:\npostgres:x:999:\nnogroup:x:65534:\n")},
		{Path: "etc/nsswitch.conf", Mode: 0o644, Data: []byte("passwd: files\ngroup: files\nhosts: files\n")},
		{Path: strings.TrimPrefix(PostgresEntrypoint, "/"), Mode: 0o755, Data: []byte(PostgresEntrypointScript)},
		{Path: "var/lib/postgresql", Mode: 0o1777, Dir: true},
		{Path: "var/run/postgresql", Mode: 0o1777, Dir: true},
		{Path: "tmp", Mode: 0o1777, Dir: true},
	}
}

// treeFiles reads a host directory tree into image files at the same
// paths: regular files with their permission bits, symlinks as symlinks
// (they point inside the tree), skipping the top-level entries in skip.
func treeFiles(dir string, skip []string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		for _, s := range skip {
			if rel == s && d.IsDir() {
				return filepath.SkipDir
			}
		}
		imgPath := strings.TrimPrefix(path.Clean(filepath.ToSlash(p)), "/")
		switch {
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			files = append(files, File{Path: imgPath, Mode: 0o777, Link: target})
		case d.Type().IsRegular():
			st, err := d.Info()
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files = append(files, File{Path: imgPath, Mode: int64(st.Mode().Perm()), Data: b})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	return files, nil
}

// PostgresService builds (or reuses, by content hash: a warm call reads
// and hashes the files and builds nothing) the image PostgresImage
// describes and returns its reference and postgres's version. log
// receives one progress line (nil: silent).
func PostgresService(ctx context.Context, eng Engine, log io.Writer) (ref, version string, err error) {
	t0 := time.Now()
	info, err := eng.Info(ctx)
	if err != nil {
		return "", "", fmt.Errorf("postgres image: %w", err)
	}
	if info.Arch != runtime.GOARCH {
		return "", "", fmt.Errorf("postgres image: this host's binaries are %s but the Docker daemon runs %s: no offline image possible", runtime.GOARCH, info.Arch)
	}
	spec, binaries, version, err := PostgresImage(ctx)
	if err != nil {
		return "", "", err
	}
	shell, _, err := HostShellFiles(ctx)
	if err != nil {
		return "", "", fmt.Errorf("postgres image: %w", err)
	}
	bins, err := HostFiles(ctx, binaries)
	if err != nil {
		return "", "", fmt.Errorf("postgres image: %w", err)
	}
	spec.Files = dedupeFiles(append(append(bins, shell...), spec.Files...))
	spec.Labels["shutdownlab.layout"] = postgresLayout
	size := 0
	for _, f := range spec.Files {
		size += len(f.Data)
	}
	ref, built, dur, err := buildScratch(ctx, eng, spec)
	if err != nil {
		return "", "", fmt.Errorf("postgres image: %w", err)
	}
	if built {
		logf(log, "built %s (%s, %d files, %.1f MB; docker build %s, total %s)\n",
			ref, version, len(spec.Files), float64(size)/1e6, round(dur), round(time.Since(t0)))
	} else {
		logf(log, "using cached %s (%s; checked in %s)\n", ref, version, round(time.Since(t0)))
	}
	return ref, version, nil
}

// dedupeFiles keeps the first file at each path (HostFiles and
// HostShellFiles both list libc and the loader).
func dedupeFiles(files []File) []File {
	seen := map[string]bool{}
	out := files[:0:0]
	for _, f := range files {
		p := strings.Trim(path.Clean("/"+f.Path), "/")
		if seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, f)
	}
	return out
}

// postgresVersion is `postgres --version` of the host binary, bounded to 20 s.
func postgresVersion(ctx context.Context) (string, error) {
	vctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	bin := PostgresBinDir + "/postgres"
	out, err := exec.CommandContext(vctx, bin, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("postgres image: %s --version: %w: %s", bin, err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}
