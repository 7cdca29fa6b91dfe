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

// object is one container, network or volume found by a label filter.
type object struct {
	kind   string // "container", "network" or "volume"
	id     string
	name   string
	labels map[string]string
}

// managed lists the containers, then networks, then volumes that carry
// LabelManaged=1 and every label in match. A failed list is an error in the
// returned slice; the other lists still run.
func (e *Engine) managed(ctx context.Context, match map[string]string) ([]object, []error) {
	labels := map[string]string{LabelManaged: "1"}
	maps.Copy(labels, match)
	f := labelFilters(labels)
	var out []object
	var errs []error
	cs, err := e.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		errs = append(errs, fmt.Errorf("container list: %w", err))
	}
	for _, c := range cs.Items {
		out = append(out, object{kind: "container", id: c.ID, name: containerName(c.Names, c.ID), labels: c.Labels})
	}
	ns, err := e.cli.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		errs = append(errs, fmt.Errorf("network list: %w", err))
	}
	for _, n := range ns.Items {
		out = append(out, object{kind: "network", id: n.ID, name: n.Name, labels: n.Labels})
	}
	vs, err := e.cli.VolumeList(ctx, client.VolumeListOptions{Filters: f})
	if err != nil {
		errs = append(errs, fmt.Errorf("volume list: %w", err))
	}
	for _, v := range vs.Items {
		out = append(out, object{kind: "volume", id: v.Name, name: v.Name, labels: v.Labels})
	}
	return out, errs
}

// remove force-removes one object and records it in r; an object that
// vanished meanwhile (or is being removed by another client) is not an
// error.
func (e *Engine) remove(ctx context.Context, o object, r *Removed) error {
	var err error
	switch o.kind {
	case "container":
		_, err = e.cli.ContainerRemove(ctx, o.id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	case "network":
		_, err = e.cli.NetworkRemove(ctx, o.id, client.NetworkRemoveOptions{})
	case "volume":
		_, err = e.cli.VolumeRemove(ctx, o.id, client.VolumeRemoveOptions{Force: true})
	}
	switch {
	case err == nil:
		switch o.kind {
		case "container":
			r.Containers = append(r.Containers, o.name)
		case "network":
			r.Networks = append(r.Networks, o.name)
		case "volume":
			r.Volumes = append(r.Volumes, o.name)
		}
		return nil
	case cerrdefs.IsNotFound(err) || (o.kind == "container" && isRemovalInProgress(err)):
		return nil
	}
	return fmt.Errorf("%s remove %s: %w", o.kind, o.name, err)
}

// Sweep force-removes every container, then every network and volume, that
// carries LabelManaged=1 and every label in match (an empty value matches any
// value). It returns what it removed; failures are joined with errors.Join
// and do not stop the sweep. Objects that vanish meanwhile are not errors.
func (e *Engine) Sweep(ctx context.Context, match map[string]string) (Removed, error) {
	objs, errs := e.managed(ctx, match)
	var out Removed
	for _, o := range objs {
		if err := e.remove(ctx, o, &out); err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

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
