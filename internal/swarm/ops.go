package swarm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moby/moby/api/types/swarm"
	"github.com/moby/moby/client"
)

// CreateOverlay creates an attachable overlay network (ordinary
// containers, the load agent and the proxy, can join it beside the
// service's tasks) with the engine's labels plus extra. It returns its id.
func (e *Engine) CreateOverlay(ctx context.Context, name string, extra map[string]string) (string, error) {
	res, err := e.cli.NetworkCreate(ctx, name, client.NetworkCreateOptions{
		Driver: "overlay", Attachable: true, Labels: e.d.Labels(extra),
	})
	if err != nil {
		return "", fmt.Errorf("overlay network create %s: %w", name, err)
	}
	return res.ID, nil
}

// CreateService creates a replicated service and returns its id. It does
// not wait for its tasks (see WaitConverged).
func (e *Engine) CreateService(ctx context.Context, c ServiceConfig) (string, error) {
	spec, err := serviceSpec(c, e.d.Labels(c.Labels))
	if err != nil {
		return "", err
	}
	res, err := e.cli.ServiceCreate(ctx, client.ServiceCreateOptions{Spec: spec})
	if err != nil {
		return "", fmt.Errorf("service create %s: %w", c.Name, err)
	}
	return res.ID, nil
}

// Rollout is one rolling update of a service.
type Rollout struct {
	// Image, when set, is the new tasks' image; otherwise the update is
	// forced (docker service update --force: same spec, new tasks).
	Image string
	// Update, when set, replaces the service's update policy first.
	Update *Update
}

// RolloutStart is what the engine was asked and when.
type RolloutStart struct {
	// SentNs is just before the update call; ReturnedNs just after it
	// returned (the engine answers at once, the tasks roll afterwards).
	SentNs, ReturnedNs int64
	// Version is the service version the update replaced; ForceUpdate the
	// new tasks' ForceUpdate counter (old tasks carry a smaller one).
	Version     uint64
	ForceUpdate uint64
	// Warnings are the engine's.
	Warnings []string
}

// Update starts a rolling update of service id (docker service update
// --force, or --image): the engine replaces the tasks in batches under the
// service's update policy. It returns once the engine accepted it.
func (e *Engine) Update(ctx context.Context, id string, r Rollout) (RolloutStart, error) {
	res, err := e.cli.ServiceInspect(ctx, id, client.ServiceInspectOptions{})
	if err != nil {
		return RolloutStart{}, fmt.Errorf("service inspect %s: %w", id, err)
	}
	svc := res.Service
	spec := svc.Spec
	if r.Update != nil {
		uc, err := updateConfig(spec.Name, *r.Update)
		if err != nil {
			return RolloutStart{}, err
		}
		spec.UpdateConfig = uc
	}
	if r.Image != "" {
		spec.TaskTemplate.ContainerSpec.Image = r.Image
	} else {
		spec.TaskTemplate.ForceUpdate++
	}
	st := RolloutStart{Version: svc.Version.Index, ForceUpdate: spec.TaskTemplate.ForceUpdate, SentNs: time.Now().UnixNano()}
	up, err := e.cli.ServiceUpdate(ctx, id, client.ServiceUpdateOptions{Version: svc.Version, Spec: spec})
	st.ReturnedNs = time.Now().UnixNano()
	if err != nil {
		return st, fmt.Errorf("service update %s: %w", spec.Name, err)
	}
	st.Warnings = up.Warnings
	return st, nil
}

// Service reads a service's update status and endpoint.
func (e *Engine) Service(ctx context.Context, id string) (swarm.Service, error) {
	res, err := e.cli.ServiceInspect(ctx, id, client.ServiceInspectOptions{})
	if err != nil {
		return swarm.Service{}, fmt.Errorf("service inspect %s: %w", id, err)
	}
	return res.Service, nil
}

// RemoveService removes a service and waits, at most bound, until its
// task containers are gone (Swarm stops them with their grace period
// first); those still present then are force-removed. A service that is
// already gone is not an error.
func (e *Engine) RemoveService(ctx context.Context, id string, bound time.Duration) error {
	var errs []error
	if _, err := e.cli.ServiceRemove(ctx, id, client.ServiceRemoveOptions{}); err != nil {
		errs = append(errs, notFoundOK(err, "service remove "+id))
	}
	wctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for {
		ids, err := e.serviceContainers(ctx, id)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		if len(ids) == 0 {
			return errors.Join(errs...)
		}
		if pause(wctx, "") != nil {
			for _, c := range ids {
				errs = append(errs, e.d.Remove(ctx, c))
			}
			return errors.Join(errs...)
		}
	}
}

// serviceContainers lists the ids of every container (running or not) of
// service id.
func (e *Engine) serviceContainers(ctx context.Context, id string) ([]string, error) {
	f := client.Filters{}
	f.Add("label", LabelServiceID+"="+id)
	res, err := e.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("container list (service %s): %w", id, err)
	}
	var ids []string
	for _, c := range res.Items {
		ids = append(ids, c.ID)
	}
	return ids, nil
}

// RemoveNetwork removes a network, retrying for at most bound while the
// engine still counts endpoints on it (a removed service's tasks detach
// asynchronously). A network that is gone is not an error.
func (e *Engine) RemoveNetwork(ctx context.Context, name string, bound time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for {
		err := e.d.RemoveNetwork(ctx, name)
		if err == nil || !errorContains(err, "active endpoints") {
			return err
		}
		if pause(wctx, "") != nil {
			return err
		}
	}
}
