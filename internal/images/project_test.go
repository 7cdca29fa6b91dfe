package images_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/images"
)

// fakeImageEngine is an images.Engine that records builds and never has a
// cached image.
type fakeImageEngine struct{ built []string }

func (f *fakeImageEngine) Info(context.Context) (docker.Info, error) {
	return docker.Info{Arch: docker.GoArch("")}, nil
}
func (f *fakeImageEngine) ImageExists(context.Context, string) (bool, error) { return false, nil }
func (f *fakeImageEngine) BuildImage(_ context.Context, r io.Reader, tag string, _ map[string]string, _ io.Writer) error {
	f.built = append(f.built, tag)
	_, err := io.Copy(io.Discard, r)
	return err
}

// TestBuildProjectOutsideRepository: the images are compiled from the
// sources built into the binary, so a working directory with no go.mod
// above it (a binary run outside the repository) builds them all the same
// (it failed with "module root: no go.mod found"), and so does the Caddy
// spec.
func TestBuildProjectOutsideRepository(t *testing.T) {
	t.Chdir(t.TempDir())
	if _, err := images.ModuleRoot(); err == nil {
		t.Skip("a go.mod lies above the temp dir; cannot test an empty working directory here")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	f := &fakeImageEngine{}
	target, agent, err := images.BuildProject(ctx, f, "", nil)
	if err != nil {
		t.Fatalf("BuildProject from an empty working dir: %v", err)
	}
	if !strings.HasPrefix(target, images.TargetImageName+":") || !strings.HasPrefix(agent, images.AgentImageName+":") || len(f.built) != 2 {
		t.Errorf("target %q agent %q built %q", target, agent, f.built)
	}
	spec, err := images.CaddySpec("")
	if err != nil || spec.Module == nil || spec.Module["main.go"] == nil {
		t.Errorf("CaddySpec from an empty working dir: %v (module %d files)", err, len(spec.Module))
	}
}
