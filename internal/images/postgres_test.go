package images

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPostgresEntrypointScriptParses checks the entrypoint with the
// host's own /bin/sh (the shell the image carries): sh -n must accept it.
func TestPostgresEntrypointScriptParses(t *testing.T) {
	f := filepath.Join(t.TempDir(), "entry.sh")
	if err := os.WriteFile(f, []byte(PostgresEntrypointScript), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("/bin/sh", "-n", f).CombinedOutput(); err != nil {
		t.Fatalf("sh -n: %v: %s\n%s", err, out, PostgresEntrypointScript)
	}
	for _, want := range []string{"initdb", "-U postgres", "--locale=C", "exec \"$bin/postgres\"", "listen_addresses=0.0.0.0",
		"samenet scram-sha-256", "--auth-host=scram-sha-256", "--pwfile=", "unset " + PostgresPasswordEnv} {
		if !strings.Contains(PostgresEntrypointScript, want) {
			t.Errorf("entrypoint lacks %q", want)
		}
	}
}

// entrypointStubs writes stand-in initdb and postgres programs that log
// their arguments (initdb also the password file it was given, and
// postgres whether the password is still in its environment) to
// dir/calls, and returns the entrypoint script pointed at them.
func entrypointStubs(t *testing.T, dir string) (script, data string) {
	t.Helper()
	bin, data := filepath.Join(dir, "bin"), filepath.Join(dir, "data")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(dir, "calls")
	stub := "#!/bin/sh\nmkdir -p " + data + " && echo \"$0 $*\" >> " + calls + "\n" +
		"for a; do case $a in --pwfile=*) echo \"pwfile: $(cat \"${a#--pwfile=}\")\" >> " + calls + ";; esac; done\n" +
		"echo \"env: ${" + PostgresPasswordEnv + ":-unset}\" >> " + calls + "\n"
	for _, b := range []string{"initdb", "postgres"} {
		if err := os.WriteFile(filepath.Join(bin, b), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return strings.NewReplacer("bin="+PostgresBinDir, "bin="+bin, "data="+PostgresData, "data="+data).Replace(PostgresEntrypointScript), data
}

// TestPostgresEntrypointWritesHBA runs the script's first-start branch
// with stand-in initdb and postgres programs: initdb must get the password
// in its password file, pg_hba.conf must be exactly PostgresHBA, and
// postgres must get the script's arguments without the password in its
// environment; the password file is left empty.
func TestPostgresEntrypointWritesHBA(t *testing.T) {
	dir := t.TempDir()
	script, data := entrypointStubs(t, dir)
	cmd := exec.Command("/bin/sh", "-c", script, "entry", "-c", "x=1")
	cmd.Env = append(os.Environ(), PostgresPasswordEnv+"=s3cret pw")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("entrypoint: %v: %s", err, out)
	}
	hba, err := os.ReadFile(filepath.Join(data, "pg_hba.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if string(hba) != PostgresHBA {
		t.Errorf("pg_hba.conf = %q, want %q", hba, PostgresHBA)
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	want := []string{"/initdb -D " + data, "pwfile: s3cret pw\nenv: s3cret pw\n", "/postgres -D " + data, "-c x=1\nenv: unset\n"}
	for _, w := range want {
		if !strings.Contains(string(calls), w) {
			t.Errorf("calls = %q, want %q", calls, w)
		}
	}
	if b, err := os.ReadFile(data + ".pwfile"); err != nil || len(b) != 0 {
		t.Errorf("password file after initdb: %q, %v; want it emptied", b, err)
	}
}

// Without a password the entrypoint refuses to start (exit 64): a server
// that trusts its network is never started by mistake.
func TestPostgresEntrypointNeedsPassword(t *testing.T) {
	script, _ := entrypointStubs(t, t.TempDir())
	cmd := exec.Command("/bin/sh", "-c", script, "entry")
	cmd.Env = append(os.Environ(), PostgresPasswordEnv+"=")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 64 || !strings.Contains(string(out), PostgresPasswordEnv+" is empty") {
		t.Errorf("entrypoint without a password: %v: %s; want exit 64 naming %s", err, out, PostgresPasswordEnv)
	}
}

func TestCheckHostPathsNamesMissingPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "usr/lib/postgresql/15/bin/postgres")
	err := checkHostPaths([]string{"/", missing})
	if err == nil {
		t.Fatal("no error for a missing path")
	}
	for _, want := range []string{missing, "apt-get install -y -qq postgresql-15"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestPostgresImageSpec(t *testing.T) {
	requirePostgres(t)
	spec, bins, version, err := PostgresImage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if spec.User != PostgresUID || spec.StopSignal != "SIGINT" || !strings.HasPrefix(version, "postgres (PostgreSQL) 15") {
		t.Errorf("user %q stop %q version %q", spec.User, spec.StopSignal, version)
	}
	paths := map[string]bool{}
	for _, f := range spec.Files {
		paths[f.Path] = true
	}
	for _, want := range []string{"usr/share/postgresql/15/postgres.bki", "usr/share/zoneinfo/UTC", "etc/passwd", "var/lib/postgresql"} {
		if !paths[want] {
			t.Errorf("image lacks %s", want)
		}
	}
	if paths["usr/share/zoneinfo/right/UTC"] {
		t.Error("image holds zoneinfo/right")
	}
	for _, b := range bins {
		if strings.Contains(b.Host, "llvmjit") {
			t.Errorf("image holds %s (jit is off)", b.Host)
		}
	}
}

// TestScratchDockerfileUserStopSignal: USER and STOPSIGNAL appear only
// when set, so images without them keep their Dockerfile (and tag).
func TestScratchDockerfileUserStopSignal(t *testing.T) {
	plain := scratchDockerfile(ScratchSpec{Name: "x", Entrypoint: []string{"/app"}})
	if strings.Contains(plain, "USER") || strings.Contains(plain, "STOPSIGNAL") {
		t.Errorf("unset fields written:\n%s", plain)
	}
	got := scratchDockerfile(ScratchSpec{Name: "x", Entrypoint: []string{"/app"}, User: "999:999", StopSignal: "SIGINT"})
	want := "FROM scratch\nADD rootfs.tar /\nUSER 999:999\nSTOPSIGNAL SIGINT\nENTRYPOINT [\"/app\"]\n"
	if got != want {
		t.Errorf("Dockerfile = %q, want %q", got, want)
	}
}

// requirePostgres fails (or, in the unit tier, skips) without the host's
// postgresql-15, naming the command that installs it.
func requirePostgres(t *testing.T) {
	t.Helper()
	err := checkHostPaths(PostgresHostPaths)
	switch {
	case err != nil && os.Getenv("SHUTDOWNLAB_SKIP_HOST_PACKAGES") == "1":
		t.Skipf("%v (SHUTDOWNLAB_SKIP_HOST_PACKAGES=1: make test runs this)", err)
	case err != nil:
		t.Fatalf("the postgres image needs the host package: %v", err)
	}
}
