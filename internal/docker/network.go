package docker

import (
	"context"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// CreateNetwork creates a user-defined bridge network (not internal; no
// ports are ever published) carrying the engine's labels plus extra. It
// returns the network id. Containers on it reach each other by name.
func (e *Engine) CreateNetwork(ctx context.Context, name string, extra map[string]string) (string, error) {
	res, err := e.cli.NetworkCreate(ctx, name, client.NetworkCreateOptions{
		Driver: "bridge",
		Labels: e.Labels(extra),
	})
	if err != nil {
		return "", fmt.Errorf("network create %s: %w", name, err)
	}
	return res.ID, nil
}

// RemoveNetwork removes a network by name or id. A network that no longer
// exists is not an error. Containers must be removed first.
func (e *Engine) RemoveNetwork(ctx context.Context, nameOrID string) error {
	_, err := e.cli.NetworkRemove(ctx, nameOrID, client.NetworkRemoveOptions{})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("network remove %s: %w", nameOrID, err)
	}
	return nil
}
