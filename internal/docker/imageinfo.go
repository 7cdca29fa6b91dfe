package docker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
)

// ImageInfo is what a local image's configuration says about how it runs
// and stops, read without starting it.
type ImageInfo struct {
	// ID is the image id.
	ID string
	// StopSignal is the image's STOPSIGNAL as written ("SIGQUIT", "3", ...);
	// empty when it sets none (docker stop then sends SIGTERM).
	StopSignal string
	// TCPPorts are the TCP ports it EXPOSEs, ascending.
	TCPPorts []int
	// Entrypoint and Cmd are its ENTRYPOINT and CMD.
	Entrypoint, Cmd []string
	// Env is its own environment (ENV lines), as NAME=VALUE.
	Env []string
	// User is its USER ("" runs as root).
	User string
}

// ErrImageNotFound is returned (wrapped) by ImageInfo for an image the
// engine does not have.
var ErrImageNotFound = errors.New("not present on this Docker engine")

// ImageInfo inspects a local image (it never pulls). The error wraps
// ErrImageNotFound when the engine does not have it.
func (e *Engine) ImageInfo(ctx context.Context, ref string) (ImageInfo, error) {
	ins, err := e.cli.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return ImageInfo{}, fmt.Errorf("image %s: %w", ref, ErrImageNotFound)
	}
	if err != nil {
		return ImageInfo{}, fmt.Errorf("image inspect %s: %w", ref, err)
	}
	info := ImageInfo{ID: ins.ID}
	if c := ins.Config; c != nil {
		info.StopSignal = c.StopSignal
		info.Entrypoint = slices.Clone(c.Entrypoint)
		info.Cmd = slices.Clone(c.Cmd)
		info.Env = slices.Clone(c.Env)
		info.User = c.User
		for p := range c.ExposedPorts {
			num, proto, _ := strings.Cut(p, "/")
			if n, err := strconv.Atoi(num); err == nil && (proto == "" || proto == "tcp") {
				info.TCPPorts = append(info.TCPPorts, n)
			}
		}
		slices.Sort(info.TCPPorts)
	}
	return info, nil
}
