package docker

import (
	"context"
	"fmt"
	"strings"

	"github.com/moby/moby/client"
)

// RegistryRef is the reference image local takes in registry (HOST[:PORT]
// or HOST[:PORT]/PREFIX): the registry, then the repository of local
// without its own registry host, and its tag ("shutdownlab/target:src-1"
// in "127.0.0.1:5000/x" is "127.0.0.1:5000/x/shutdownlab/target:src-1").
func RegistryRef(registry, local string) string {
	repo := local
	if first, rest, ok := strings.Cut(local, "/"); ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
		repo = rest // drop the local reference's own registry host
	}
	return strings.TrimSuffix(registry, "/") + "/" + repo
}

// PushImage tags the local image local as remote and pushes it; the
// engine reaches the registry itself (plain http to 127.0.0.0/8 is
// allowed by Docker; another registry needs the engine's own settings and
// credentials). An error quotes the engine's message.
func (e *Engine) PushImage(ctx context.Context, local, remote string) error {
	if _, err := e.cli.ImageTag(ctx, client.ImageTagOptions{Source: local, Target: remote}); err != nil {
		return fmt.Errorf("docker tag %s %s: %w", local, remote, err)
	}
	res, err := e.cli.ImagePush(ctx, remote, client.ImagePushOptions{RegistryAuth: "e30="}) // "{}": no credentials
	if err != nil {
		return fmt.Errorf("docker push %s: %w", remote, err)
	}
	defer res.Close()
	for msg, err := range res.JSONMessages(ctx) {
		if err != nil {
			return fmt.Errorf("docker push %s: %w", remote, err)
		}
		if msg.Error != nil {
			return fmt.Errorf("docker push %s: %s", remote, msg.Error.Message)
		}
	}
	return nil
}
