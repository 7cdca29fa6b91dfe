package docker

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// MaxCopySize bounds the size of a file CopyFileFrom will read (1 GiB).
const MaxCopySize = 1 << 30

// CopyFileFrom reads one regular file out of a container, running or
// stopped, through the archive endpoint. A missing file gives an error
// matching ErrNotFound (a missing container gives a different error, which
// also matches ErrNotFound only if the container is gone).
func (e *Engine) CopyFileFrom(ctx context.Context, id, path string) ([]byte, error) {
	res, err := e.cli.CopyFromContainer(ctx, id, client.CopyFromContainerOptions{SourcePath: path})
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			if _, ierr := e.Inspect(ctx, id); ierr != nil {
				return nil, fmt.Errorf("copy %s from container: %w", path, ierr)
			}
			return nil, fmt.Errorf("copy %s from container %s: %w: %w", path, id, ErrNotFound, err)
		}
		return nil, fmt.Errorf("copy %s from container %s: %w", path, id, err)
	}
	defer res.Content.Close()
	if res.Stat.Mode.IsDir() {
		return nil, fmt.Errorf("copy %s from container %s: is a directory", path, id)
	}
	tr := tar.NewReader(res.Content)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("copy %s from container %s: empty archive: %w", path, id, ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("copy %s from container %s: read archive: %w", path, id, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if h.Size > MaxCopySize {
			return nil, fmt.Errorf("copy %s from container %s: file too large (%d bytes)", path, id, h.Size)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("copy %s from container %s: read archive: %w", path, id, err)
		}
		return data, nil
	}
}
