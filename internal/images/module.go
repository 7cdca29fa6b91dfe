package images

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/shutdownlab/shutdownlab"
)

// Refresh the copies of the Caddy module after changing cmd/caddy
// (TestCaddySourcesInSync fails until they match).
//go:generate sh -c "cp ../../cmd/caddy/go.mod caddysrc/go.mod.txt && cp ../../cmd/caddy/go.sum caddysrc/go.sum.txt && cp ../../cmd/caddy/main.go caddysrc/main.go.txt"

// caddySrc holds copies of cmd/caddy's go.mod, go.sum and main.go. The
// nested module cannot be embedded where it lives (a directory with its own
// go.mod is outside this module), so the copies carry a .txt suffix.
//
//go:embed caddysrc/go.mod.txt caddysrc/go.sum.txt caddysrc/main.go.txt
var caddySrc embed.FS

// CaddySources are the files that determine the Caddy binary, relative to
// its module root (cmd/caddy).
var CaddySources = []string{"go.mod", "go.sum", "main.go"}

// Module is a Go module source tree held in memory: slash-separated path
// relative to the module root -> content.
type Module map[string][]byte

// Files returns the module's paths in sorted order.
func (m Module) Files() []string { return slices.Sorted(maps.Keys(m)) }

// subset returns the files of m named in files.
func (m Module) subset(files []string) Module {
	out := Module{}
	for _, f := range files {
		if b, ok := m[path.Clean(f)]; ok {
			out[path.Clean(f)] = b
		}
	}
	return out
}

// PackageSources returns, sorted, the files of m that compiling pkg (a
// directory relative to the module root: "./cmd/target") can read: go.mod,
// go.sum, and the files of pkg's directory and of every package of the
// module it imports, transitively. Imports are read from the Go files
// themselves (build constraints ignored, so it is a superset); a package
// with a //go:embed directive brings its whole subtree. Keying an image by
// these files only means a change elsewhere in the module (the load agent's
// code, for the target) does not rebuild it.
func (m Module) PackageSources(pkg string) ([]string, error) {
	modPath := modulePath(m["go.mod"])
	if modPath == "" {
		return nil, errors.New("images: module has no go.mod with a module line")
	}
	byDir := map[string][]string{}
	for p := range m {
		byDir[path.Dir(p)] = append(byDir[path.Dir(p)], p)
	}
	want := map[string]bool{"go.mod": true, "go.sum": m["go.sum"] != nil}
	seen := map[string]bool{}
	queue := []string{path.Clean(pkg)}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		if seen[dir] {
			continue
		}
		seen[dir] = true
		if len(byDir[dir]) == 0 {
			return nil, fmt.Errorf("images: package %s: no files in the module", dir)
		}
		for _, f := range byDir[dir] {
			want[f] = true
			if !strings.HasSuffix(f, ".go") {
				continue
			}
			imports, embeds, err := goImports(f, m[f])
			if err != nil {
				return nil, err
			}
			if embeds {
				for p := range m {
					if strings.HasPrefix(p, dir+"/") {
						want[p] = true
					}
				}
			}
			for _, imp := range imports {
				if rel, ok := strings.CutPrefix(imp, modPath+"/"); ok {
					queue = append(queue, rel)
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(want)), nil
}

// goImports returns the import paths of a Go file and whether it embeds
// files.
func goImports(name string, src []byte) ([]string, bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		return nil, false, fmt.Errorf("images: %w", err)
	}
	var out []string
	for _, spec := range f.Imports {
		if p, err := strconv.Unquote(spec.Path.Value); err == nil {
			out = append(out, p)
		}
	}
	return out, bytes.Contains(src, []byte("//go:embed")), nil
}

// modulePath is the module line of a go.mod file ("" if none).
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

var embedded = sync.OnceValues(func() (Module, error) {
	return moduleFromFS(shutdownlab.ImageSources)
})

// EmbeddedModule returns the image sources built into this binary
// (shutdownlab.ImageSources) without tests and testdata: what the target,
// load agent and probe images are compiled from, whatever the working
// directory.
func EmbeddedModule() (Module, error) { return embedded() }

// CaddyModule returns the Caddy proxy's module (cmd/caddy: go.mod, go.sum,
// main.go) as built into this binary.
func CaddyModule() (Module, error) {
	m := Module{}
	for _, name := range CaddySources {
		b, err := caddySrc.ReadFile("caddysrc/" + name + ".txt")
		if err != nil {
			return nil, fmt.Errorf("caddy sources: %w", err)
		}
		m[name] = b
	}
	return m, nil
}

// EmbeddedFile returns one file of the embedded image sources, e.g.
// NodeServerFile.
func EmbeddedFile(name string) ([]byte, error) {
	b, err := shutdownlab.ImageSources.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("embedded sources: %w", err)
	}
	return b, nil
}

// moduleFromFS reads every regular file of fsys except Go test files and
// testdata directories.
func moduleFromFS(fsys fs.FS) (Module, error) {
	m := Module{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "testdata":
			return fs.SkipDir
		case d.IsDir() || strings.HasSuffix(p, "_test.go"):
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		m[p] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("embedded sources: %w", err)
	}
	return m, nil
}

// writeModule writes m into a new temporary directory and returns it; the
// caller removes it.
func writeModule(m Module) (string, error) {
	dir, err := os.MkdirTemp("", "shutdownlab-src-")
	if err != nil {
		return "", fmt.Errorf("images: %w", err)
	}
	for _, p := range m.Files() {
		if !fs.ValidPath(p) {
			os.RemoveAll(dir)
			return "", fmt.Errorf("images: bad module path %q", p)
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("images: %w", err)
		}
		if err := os.WriteFile(dst, m[p], 0o644); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("images: %w", err)
		}
	}
	return dir, nil
}

// readSource reads one source file of spec: from spec.Module when set, else
// from dir.
func readSource(spec Spec, dir, name string) ([]byte, error) {
	if spec.Module != nil {
		b, ok := spec.Module[path.Clean(name)]
		if !ok {
			return nil, fmt.Errorf("%s: not in the module", name)
		}
		return b, nil
	}
	return os.ReadFile(filepath.Join(dir, name))
}
