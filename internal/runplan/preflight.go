package runplan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Checks made before anything starts: everything that would otherwise fail
// only after the run time was spent. Each failure is a usage error (exit
// 64) and leaves nothing behind.

// CheckWritableDir reports whether files can be created in dir, or, when
// dir does not exist yet, in its nearest existing ancestor (dir will be
// created there). It creates and removes a probe file; nothing is left.
// The error names the flag and its value shown.
func CheckWritableDir(flagName, shown, dir string) error {
	d := filepath.Clean(dir)
	for {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return Usagef("%s %s: %s is not a directory", flagName, shown, d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return Usagef("%s %s: %v", flagName, shown, err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Usagef("%s %s: no existing parent directory", flagName, shown)
		}
		d = parent
	}
	f, err := os.CreateTemp(d, ".shutdownlab-write-check-*")
	if err != nil {
		return Usagef("%s %s: cannot write in %s: %v", flagName, shown, d, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// CheckWritableFile reports whether path can be written: an existing file
// must be a regular file opened for writing (not truncated here), a new
// one must be creatable in its directory (made if missing).
func CheckWritableFile(flagName, path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return Usagef("%s %s: not a regular file", flagName, path)
	case err == nil:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return Usagef("%s %s: %v", flagName, path, errors.Unwrap(err))
		}
		return f.Close()
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return Usagef("%s %s: %v", flagName, path, err)
	}
	return CheckWritableDir(flagName, path, filepath.Dir(path))
}

// junitPaths are the files --junit writes for these scenarios.
func junitPaths(junit string, names []string) []string {
	if junit == "" {
		return nil
	}
	if len(names) == 1 {
		return []string{junit}
	}
	var out []string
	ext := filepath.Ext(junit)
	for _, n := range names {
		out = append(out, strings.TrimSuffix(junit, ext)+"-"+n+ext)
	}
	return out
}

// ResultDirExists is the usage error for a result directory that is not
// there.
func ResultDirExists(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return Usagef("result directory %s: %v", dir, errors.Unwrap(err))
	case !fi.IsDir():
		return Usagef("result directory %s: not a directory", dir)
	}
	return nil
}

// CheckExpectations refuses, before anything runs, an expectation naming
// a metric the scenario cannot produce, and reference.NAME without a
// --reference-variant that is one of the scenario's variants. where names
// the scenario in the message.
func CheckExpectations(where string, exps []*gate.Expectation, c gate.Capabilities, referenceVariant string, labels []string) error {
	for _, e := range exps {
		if err := e.CheckAvailable(c); err != nil {
			return Usagef("%s: %s", where, CaretMsg(err))
		}
		if !e.UsesReference() {
			continue
		}
		if referenceVariant == "" {
			return Usagef("%s: expect %q uses reference.NAME but no --reference-variant was given (variants: %s)",
				where, scenarios.Shorten(e.Source), strings.Join(labels, ", "))
		}
		if !slices.Contains(labels, referenceVariant) {
			return Usagef("%s: --reference-variant %q is not a variant of it (variants: %s)", where, scenarios.Shorten(referenceVariant), strings.Join(labels, ", "))
		}
	}
	return nil
}

// CaretMsg is an expectation error with its caret line, when it has one.
func CaretMsg(err error) string {
	var ge *gate.Error
	if errors.As(err, &ge) {
		return err.Error() + "\n" + ge.Caret()
	}
	return err.Error()
}

// ImageEngine is what the image check needs of the Docker engine.
type ImageEngine interface {
	// ImageExists reports whether the engine has image ref.
	ImageExists(ctx context.Context, ref string) (bool, error)
	// Host names the engine in messages.
	Host() string
	// Close releases the connection.
	Close() error
}

// NewImageEngine connects to the engine the image check asks; tests
// replace it with a fake.
var NewImageEngine = func(ctx context.Context) (ImageEngine, error) {
	eng, err := docker.New(ctx)
	if err != nil {
		return nil, err
	}
	return eng, nil
}

// SetImages returns the images --image and --set target.image=NAME name.
func SetImages(sets []string) []string {
	var refs []string
	for _, s := range sets {
		if k, v, ok := strings.Cut(s, "="); ok && strings.TrimSpace(k) == "target.image" {
			if v = strings.TrimSpace(v); v != "" && !slices.Contains(refs, v) {
				refs = append(refs, v)
			}
		}
	}
	return refs
}

// checkImages refuses a target.image of the variants that is not present
// on the engine, before a result directory is made: shutdownlab never
// pulls. Images in checked were checked already; a variant on platform
// kubernetes is not checked (the cluster's nodes may have it, or pull it).
func checkImages(ctx context.Context, vs []scenarios.Variant, checked []string) error {
	var refs []string
	for _, v := range vs {
		if v.Spec.Platform == scenarios.PlatformKubernetes {
			continue // the cluster's nodes may have the image or pull it
		}
		if im := v.Spec.Target.Image; im != "" && !slices.Contains(refs, im) && !slices.Contains(checked, im) {
			refs = append(refs, im)
		}
	}
	return CheckImageRefs(ctx, refs)
}

// CheckImageRefs refuses the first of refs that is not present on the
// engine (one connection for all of them; none without refs).
func CheckImageRefs(ctx context.Context, refs []string) error {
	if len(refs) == 0 {
		return nil
	}
	eng, err := NewImageEngine(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	for _, ref := range refs {
		ok, err := eng.ImageExists(ctx, ref)
		if err != nil {
			return err
		}
		if !ok {
			return Usagef("--image / target.image %s: not present on this Docker engine (%s); shutdownlab never pulls: build or load it first", scenarios.Shorten(ref), eng.Host())
		}
	}
	return nil
}

// describe is "scenario NAME (FILE)" for messages.
func describe(sc *scenarios.Scenario) string {
	return fmt.Sprintf("scenario %s (%s)", sc.Name(), sc.File)
}
