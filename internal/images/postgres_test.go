package images

import (
	"context"
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
	for _, want := range []string{"initdb", "-U postgres", "--locale=C", "exec \"$bin/postgres\"", "listen_addresses=0.0.0.0", "samenet trust"} {
		if !strings.Contains(PostgresEntrypointScript, want) {
			t.Errorf("entrypoint lacks %q", want)
		}
	}
}

// TestPostgresEntrypointWritesHBA runs the script's first-start branch
// with stand-in initdb and postgres programs: pg_hba.conf must be exactly
// PostgresHBA and postgres must get the script's arguments.
func TestPostgresEntrypointWritesHBA(t *testing.T) {
	dir := t.TempDir()
	bin, data := filepath.Join(dir, "bin"), filepath.Join(dir, "data")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	stub := "#!/bin/sh\nmkdir -p " + data + " && echo \"$0 $*\" >> " + filepath.Join(dir, "calls") + "\n"
	for _, b := range []string{"initdb", "postgres"} {
		if err := os.WriteFile(filepath.Join(bin, b), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := strings.NewReplacer("bin="+PostgresBinDir, "bin="+bin, "data="+PostgresData, "data="+data).Replace(PostgresEntrypointScript)
	cmd := exec.Command("/bin/sh", "-c", script, "entry", "-c", "x=1")
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
	if !strings.Contains(string(calls), "/initdb -D "+data) || !strings.Contains(string(calls), "/postgres -D "+data) || !strings.Contains(string(calls), "-c x=1") {
		t.Errorf("calls = %q, want initdb then postgres with -c x=1", calls)
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
	if err := checkHostPaths(PostgresHostPaths); err != nil {
		t.Fatalf("the postgres image needs the host package: %v", err)
	}
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
