package docker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// Removed lists the objects a sweep removed, by name.
type Removed struct {
	Containers []string `json:"containers,omitempty"`
	Networks   []string `json:"networks,omitempty"`
	Volumes    []string `json:"volumes,omitempty"`
	Images     []string `json:"images,omitempty"`
}

// Empty reports whether nothing was removed.
func (r Removed) Empty() bool {
	return len(r.Containers)+len(r.Networks)+len(r.Volumes)+len(r.Images) == 0
}

// String is a one-line summary, e.g. "2 containers, 1 network, 0 volumes".
func (r Removed) String() string {
	s := fmt.Sprintf("%d containers, %d networks, %d volumes", len(r.Containers), len(r.Networks), len(r.Volumes))
	if len(r.Images) > 0 {
		s += fmt.Sprintf(", %d images", len(r.Images))
	}
	return s
}

func labelFilters(labels map[string]string) client.Filters {
	f := client.Filters{}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if v := labels[k]; v != "" {
			f.Add("label", k+"="+v)
		} else {
			f.Add("label", k)
		}
	}
	return f
}

// Leftovers lists (without removing) the containers and networks that carry
// LabelManaged=1 and every label in match (an empty value matches any value).
func (e *Engine) Leftovers(ctx context.Context, match map[string]string) (Removed, error) {
	labels := map[string]string{LabelManaged: "1"}
	maps.Copy(labels, match)
	f := labelFilters(labels)
	var out Removed
	cs, err := e.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return out, fmt.Errorf("container list: %w", err)
	}
	for _, c := range cs.Items {
		out.Containers = append(out.Containers, containerName(c.Names, c.ID))
	}
	ns, err := e.cli.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		return out, fmt.Errorf("network list: %w", err)
	}
	for _, n := range ns.Items {
		out.Networks = append(out.Networks, n.Name)
	}
	return out, nil
}

// Sweep force-removes every container, then every network and volume, that
// carries LabelManaged=1 and every label in match (an empty value matches any
// value). It returns what it removed; failures are joined with errors.Join
// and do not stop the sweep. Objects that vanish meanwhile are not errors.
func (e *Engine) Sweep(ctx context.Context, match map[string]string) (Removed, error) {
	labels := map[string]string{LabelManaged: "1"}
	maps.Copy(labels, match)
	f := labelFilters(labels)
	var out Removed
	var errs []error

	cs, err := e.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		errs = append(errs, fmt.Errorf("container list: %w", err))
	}
	for _, c := range cs.Items {
		name := containerName(c.Names, c.ID)
		_, err := e.cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		switch {
		case err == nil:
			out.Containers = append(out.Containers, name)
		case cerrdefs.IsNotFound(err) || isRemovalInProgress(err):
		default:
			errs = append(errs, fmt.Errorf("container remove %s: %w", name, err))
		}
	}

	ns, err := e.cli.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		errs = append(errs, fmt.Errorf("network list: %w", err))
	}
	for _, n := range ns.Items {
		_, err := e.cli.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{})
		switch {
		case err == nil:
			out.Networks = append(out.Networks, n.Name)
		case cerrdefs.IsNotFound(err):
		default:
			errs = append(errs, fmt.Errorf("network remove %s: %w", n.Name, err))
		}
	}

	vs, err := e.cli.VolumeList(ctx, client.VolumeListOptions{Filters: f})
	if err != nil {
		errs = append(errs, fmt.Errorf("volume list: %w", err))
	}
	for _, v := range vs.Items {
		_, err := e.cli.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true})
		switch {
		case err == nil:
			out.Volumes = append(out.Volumes, v.Name)
		case cerrdefs.IsNotFound(err):
		default:
			errs = append(errs, fmt.Errorf("volume remove %s: %w", v.Name, err))
		}
	}
	return out, errors.Join(errs...)
}

// Clean removes every container, network and volume labelled LabelManaged=1,
// from any session (leftovers of killed runs). Images are kept.
func (e *Engine) Clean(ctx context.Context) (Removed, error) { return e.Sweep(ctx, nil) }

// CleanSession removes the objects of this Engine's session only.
func (e *Engine) CleanSession(ctx context.Context) (Removed, error) {
	return e.Sweep(ctx, map[string]string{LabelSession: e.session})
}

// PruneImages removes every image labelled LabelImage=1 (all its tags).
// Images still used by a container are reported as errors.
func (e *Engine) PruneImages(ctx context.Context) (Removed, error) {
	var out Removed
	imgs, err := e.cli.ImageList(ctx, client.ImageListOptions{Filters: labelFilters(map[string]string{LabelImage: "1"})})
	if err != nil {
		return out, fmt.Errorf("image list: %w", err)
	}
	var errs []error
	for _, im := range imgs.Items {
		name := im.ID
		if len(im.RepoTags) > 0 {
			name = strings.Join(im.RepoTags, ",")
		}
		_, err := e.cli.ImageRemove(ctx, im.ID, client.ImageRemoveOptions{Force: true, PruneChildren: true})
		switch {
		case err == nil:
			out.Images = append(out.Images, name)
		case cerrdefs.IsNotFound(err):
		default:
			errs = append(errs, fmt.Errorf("image remove %s: %w", name, err))
		}
	}
	return out, errors.Join(errs...)
}

func containerName(names []string, id string) string {
	if len(names) > 0 {
		return strings.TrimPrefix(names[0], "/")
	}
	return shortID(id)
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// isRemovalInProgress matches the daemon's conflict error when another
// client is already removing the container.
func isRemovalInProgress(err error) bool {
	return err != nil && strings.Contains(err.Error(), "already in progress")
}
