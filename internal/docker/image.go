package docker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/build"
	"github.com/moby/moby/client"
)

// ImageExists reports whether an image reference exists locally.
func (e *Engine) ImageExists(ctx context.Context, ref string) (bool, error) {
	_, err := e.cli.ImageInspect(ctx, ref)
	if err == nil {
		return true, nil
	}
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	return false, fmt.Errorf("image inspect %s: %w", ref, err)
}

// BuildImage builds an image from a tar build context (Dockerfile at its
// root) with the legacy builder, tags it tag and sets labels on it. The
// builder's output lines are copied to out (nil discards them). The build
// endpoint reports failures inside its JSON stream; BuildImage returns them
// as an error quoting the builder's message.
func (e *Engine) BuildImage(ctx context.Context, tarContext io.Reader, tag string, labels map[string]string, out io.Writer) error {
	if out == nil {
		out = io.Discard
	}
	res, err := e.cli.ImageBuild(ctx, tarContext, client.ImageBuildOptions{
		Tags:        []string{tag},
		Labels:      labels,
		Remove:      true,
		ForceRemove: true,
		Version:     build.BuilderV1,
	})
	if err != nil {
		return fmt.Errorf("image build %s: %w", tag, err)
	}
	defer res.Body.Close()
	if err := readBuildStream(res.Body, out); err != nil {
		return fmt.Errorf("image build %s: %w", tag, err)
	}
	return nil
}

// buildMessage is one line of the build endpoint's JSON stream.
type buildMessage struct {
	Stream      string `json:"stream"`
	Status      string `json:"status"`
	Error       string `json:"error"`
	ErrorDetail *struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// readBuildStream copies the stream's text to out and returns the first
// error message the builder reported.
func readBuildStream(r io.Reader, out io.Writer) error {
	dec := json.NewDecoder(bufio.NewReader(r))
	var lastLines []string
	for {
		var m buildMessage
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read build output: %w", err)
		}
		msg := m.Error
		if m.ErrorDetail != nil && m.ErrorDetail.Message != "" {
			msg = m.ErrorDetail.Message
		}
		if msg != "" {
			ctx := ""
			if len(lastLines) > 0 {
				ctx = " (after: " + strings.Join(lastLines, " | ") + ")"
			}
			return fmt.Errorf("builder: %s%s", strings.TrimSpace(msg), ctx)
		}
		text := m.Stream
		if text == "" && m.Status != "" {
			text = m.Status + "\n"
		}
		if text != "" {
			_, _ = io.WriteString(out, text)
			if l := strings.TrimSpace(text); l != "" {
				lastLines = append(lastLines, l)
				if len(lastLines) > 3 {
					lastLines = lastLines[1:]
				}
			}
		}
	}
}
