package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// MaxExecOutput bounds the output Exec keeps of a command (64 KiB).
const MaxExecOutput = 64 << 10

// Exec runs cmd inside a running container (docker exec, no TTY, no stdin)
// and waits for it to end, at most timeout. It returns the command's exit
// code and its stdout and stderr (each cut to MaxExecOutput). A command
// still running after timeout is an error (the engine has no call to kill
// an exec; it ends with its container).
func (e *Engine) Exec(ctx context.Context, id string, cmd []string, timeout time.Duration) (int, []byte, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cr, err := e.cli.ExecCreate(ctx, id, client.ExecCreateOptions{Cmd: cmd, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return 0, nil, nil, fmt.Errorf("exec %q in container %s: create: %w", cmd, id, err)
	}
	att, err := e.cli.ExecAttach(ctx, cr.ID, client.ExecAttachOptions{})
	if err != nil {
		return 0, nil, nil, fmt.Errorf("exec %q in container %s: start: %w", cmd, id, err)
	}
	defer att.Close()
	done := make(chan error, 1)
	var stdout, stderr bytes.Buffer
	go func() {
		_, err := stdcopy.StdCopy(&capped{&stdout}, &capped{&stderr}, att.Reader)
		done <- err
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		att.Close() // ends the copy; then its buffers are ours to read
		<-done
		return 0, stdout.Bytes(), stderr.Bytes(), fmt.Errorf("exec %q in container %s: not done within %s", cmd, id, timeout)
	}
	if err != nil {
		return 0, stdout.Bytes(), stderr.Bytes(), fmt.Errorf("exec %q in container %s: read output: %w", cmd, id, err)
	}
	ins, err := e.cli.ExecInspect(ctx, cr.ID, client.ExecInspectOptions{})
	if err != nil {
		return 0, stdout.Bytes(), stderr.Bytes(), fmt.Errorf("exec %q in container %s: inspect: %w", cmd, id, err)
	}
	if ins.Running {
		return 0, stdout.Bytes(), stderr.Bytes(), fmt.Errorf("exec %q in container %s: output closed but still running", cmd, id)
	}
	return ins.ExitCode, stdout.Bytes(), stderr.Bytes(), nil
}

// CopyFileTo writes data as the file dst (mode 0644) into a container,
// through the archive endpoint; dst's directory must exist.
func (e *Engine) CopyFileTo(ctx context.Context, id, dst string, data []byte) error {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	h := &tar.Header{Name: path.Base(dst), Mode: 0o644, Size: int64(len(data)), ModTime: time.Now()}
	if err := tw.WriteHeader(h); err != nil {
		return fmt.Errorf("copy %s to container %s: %w", dst, id, err)
	}
	if _, err := tw.Write(data); err != nil {
		return fmt.Errorf("copy %s to container %s: %w", dst, id, err)
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("copy %s to container %s: %w", dst, id, err)
	}
	_, err := e.cli.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: path.Dir(dst), Content: &b})
	if err != nil {
		return fmt.Errorf("copy %s to container %s: %w", dst, id, err)
	}
	return nil
}

// capped is a writer that keeps at most MaxExecOutput bytes and discards
// the rest (reporting them written, so the stream is drained).
type capped struct{ b *bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := MaxExecOutput - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

var _ io.Writer = (*capped)(nil)
