package runner

import (
	"context"

	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// imageSource is what the runner asks of internal/images: the images of a
// run, each built (or found by content hash) on first use.
type imageSource interface {
	// Go returns the project's Go image name built from main package pkg.
	Go(ctx context.Context, name, pkg string) (string, error)
	// Caddy returns the Caddy proxy image.
	Caddy(ctx context.Context) (string, error)
	// Target returns a target's image and the label naming its runtime.
	Target(ctx context.Context, t images.Target) (ref, label string, err error)
}

var _ imageSource = (*images.Cache)(nil)

// imageTarget says which image the scenario's target runs.
func imageTarget(t scenarios.Target) images.Target {
	return images.Target{Image: t.Image, Node: t.Runtime == scenarios.RuntimeNode,
		Shell: t.Entrypoint == scenarios.EntrypointShell}
}

// targetImage is the image a run's replicas run, as set-up resolved it.
type targetImage struct {
	// ref is the image and runtime its runtime label.
	ref, runtime string
	// imageEnv is a user image's own environment (nil for the built-in
	// targets): what target.env may override.
	imageEnv []string
}
