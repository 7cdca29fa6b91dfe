package images_test

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/images"
)

// TestEmbeddedModuleCoversImagePackages: for each image program, the
// embedded files its image is keyed by and compiled from
// (PackageSources) are exactly the packages `go list -deps` says it
// builds from, so a binary built from this tree can compile its images
// anywhere and rebuilds an image only when its own inputs change. A new
// import outside the embed list fails here, not on a user's machine.
func TestEmbeddedModuleCoversImagePackages(t *testing.T) {
	m, err := images.EmbeddedModule()
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/shutdownlab/shutdownlab"
	// The image programs: the target, the probe and every load agent
	// (sources.go embeds cmd/*agent by pattern, so a new load kind's
	// command named so is embedded and checked here without an edit).
	agents, err := filepath.Glob(filepath.Join(moduleRoot(t), "cmd", "*agent"))
	if err != nil || len(agents) < 3 {
		t.Fatalf("cmd/*agent: %v, %v; want the load agents", agents, err)
	}
	pkgs := []string{"./cmd/target", "./cmd/probe"}
	for _, dir := range agents {
		pkgs = append(pkgs, "./cmd/"+filepath.Base(dir))
	}
	for _, pkg := range pkgs {
		cmd := exec.Command("go", "list", "-deps", "-f",
			"{{if not .Standard}}{{.ImportPath}}{{with .Module}} {{.Path}} {{.Version}}{{end}}{{end}}", pkg)
		cmd.Dir = moduleRoot(t)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		want := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line) // import path, module path, version
			rel, ok := strings.CutPrefix(f[0], mod+"/")
			if ok {
				want[rel] = true
				continue
			}
			// A third-party package (github.com/coder/websocket for
			// /events) builds from the module cache or GOPROXY, as Caddy's
			// do; the embedded go.sum must pin it, so the image key holds it.
			if len(f) != 3 || !bytes.Contains(m["go.sum"], []byte(f[1]+" "+f[2]+" h1:")) {
				t.Errorf("%s imports %s, outside this module and not pinned by the embedded go.sum", pkg, line)
			}
		}
		files, err := m.PackageSources(pkg)
		if err != nil {
			t.Fatalf("PackageSources(%s): %v (a package missing from sources.go?)", pkg, err)
		}
		got := map[string]bool{}
		for _, f := range files {
			if d := path.Dir(f); d != "." {
				got[d] = true
			}
		}
		for d := range want {
			if !got[d] {
				t.Errorf("%s builds from %s, which is not among its embedded sources (add it to sources.go)", pkg, d)
			}
		}
		for d := range got {
			if !want[d] {
				t.Errorf("%s: embedded sources include %s, which it does not build from", pkg, d)
			}
		}
		if !slices.Contains(files, "go.mod") || !slices.Contains(files, "go.sum") {
			t.Errorf("%s: sources %q lack go.mod or go.sum", pkg, files)
		}
	}
	if m[images.NodeServerFile] == nil {
		t.Errorf("%s not embedded", images.NodeServerFile)
	}
	for p := range m {
		if strings.HasSuffix(p, "_test.go") || strings.Contains(p, "testdata/") {
			t.Errorf("%s: tests are not part of an image's sources", p)
		}
	}
}

// TestCaddySourcesInSync: the embedded copy of cmd/caddy equals the nested
// module (run `go generate ./internal/images` after changing it).
func TestCaddySourcesInSync(t *testing.T) {
	m, err := images.CaddyModule()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range images.CaddySources {
		disk, err := os.ReadFile(filepath.Join(moduleRoot(t), "cmd", "caddy", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(disk, m[name]) {
			t.Errorf("internal/images/caddysrc/%s.txt differs from cmd/caddy/%s: run `go generate ./internal/images`", name, name)
		}
	}
}

// TestBuildFromEmptyWorkingDir compiles the load agent from the embedded
// sources with the working directory in an empty temp dir (no go.mod
// anywhere above it), then checks that a cached tag costs no build and that
// the Caddy tag is the one its on-disk sources give (no rebuild of a cached
// Caddy image).
func TestBuildFromEmptyWorkingDir(t *testing.T) {
	root := moduleRoot(t)
	t.Chdir(t.TempDir())
	if _, err := images.ModuleRoot(); err == nil {
		t.Skip("a go.mod lies above the temp dir; cannot test an empty working directory here")
	}
	m, err := images.EmbeddedModule()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	spec := images.Spec{Name: "shutdownlab/test-agent", Package: "./cmd/loadagent", Module: m}
	f := &fakeEngine{}
	ref, built, err := images.Build(ctx, f, spec)
	if err != nil {
		t.Fatalf("Build from an empty working dir: %v", err)
	}
	if !built || f.tag != ref || !strings.HasPrefix(ref, spec.Name+":src-") {
		t.Errorf("Build = %q built=%v (engine got %q), want a fresh src- tag", ref, built, f.tag)
	}
	app := tarNames(t, tarFile(t, f.ctxTar, "rootfs.tar"))["app"]
	if app == nil || app.Size < 1<<20 {
		t.Errorf("image has no compiled /app: %+v", app)
	}
	cached := &fakeEngine{exists: true}
	ref2, built2, err := images.Build(ctx, cached, spec)
	if err != nil || built2 || ref2 != ref || cached.tag != "" {
		t.Errorf("cached Build = %q built=%v err=%v (built %q), want %q reused", ref2, built2, err, cached.tag, ref)
	}

	caddy, err := images.CaddyModule()
	if err != nil {
		t.Fatal(err)
	}
	fromCopy, _, err := images.Build(ctx, cached, images.Spec{Name: "c", Package: ".", Sources: images.CaddySources, Module: caddy})
	if err != nil {
		t.Fatal(err)
	}
	fromDisk, _, err := images.Build(ctx, cached, images.Spec{Name: "c", Package: ".", Sources: images.CaddySources,
		ModuleDir: filepath.Join(root, "cmd", "caddy")})
	if err != nil || fromCopy != fromDisk {
		t.Errorf("caddy tag from the embedded copy %q, from cmd/caddy %q (%v): want equal", fromCopy, fromDisk, err)
	}
}

// tarFile returns the content of the named entry of a tar archive.
func tarFile(t *testing.T, b []byte, name string) []byte {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s not in the tar: %v", name, err)
		}
		if h.Name == name {
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
}

// TestPackageSources: the files an image is keyed by follow the module's
// own imports transitively, leave out unrelated packages, take a whole
// subtree for a package that embeds files, and name a missing package.
func TestPackageSources(t *testing.T) {
	m := images.Module{
		"go.mod":         []byte("module example.com/m\n\ngo 1.22\n"),
		"go.sum":         []byte(""),
		"cmd/a/main.go":  []byte("package main\nimport (\n\"fmt\"\n\"example.com/m/lib\"\n)\nfunc main(){fmt.Println(lib.X)}\n"),
		"lib/lib.go":     []byte("package lib\nimport \"example.com/m/emb\"\nvar X = emb.Y\n"),
		"emb/emb.go":     []byte("package emb\nimport _ \"embed\"\n//go:embed data/x.txt\nvar Y string\n"),
		"emb/data/x.txt": []byte("x"),
		"other/o.go":     []byte("package other\n"),
		"cmd/b/main.go":  []byte("package main\nimport \"example.com/m/missing\"\n"),
	}
	got, err := m.PackageSources("./cmd/a")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cmd/a/main.go", "emb/data/x.txt", "emb/emb.go", "go.mod", "go.sum", "lib/lib.go"}
	if !slices.Equal(got, want) {
		t.Errorf("PackageSources = %q, want %q", got, want)
	}
	if _, err := m.PackageSources("./cmd/b"); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing package: err %v", err)
	}
}
