package runner

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// overlapLister is the part of the engine's client the overlap watch uses
// (*client.Client).
type overlapLister interface {
	ContainerList(ctx context.Context, opts client.ContainerListOptions) (client.ContainerListResult, error)
	Events(ctx context.Context, opts client.EventsListOptions) client.EventsResult
}

// overlapCallTimeout bounds each container list of the overlap watch.
const overlapCallTimeout = 10 * time.Second

// overlapWatch notices other shutdownlab sessions with live containers on
// the same engine while a run is in progress: another run's load and
// targets share the machine's cores, so this run's timings may be
// disturbed. It lists the running managed containers at the start and at
// the end of the run, and follows the engine's container start events in
// between, so a run that started and ended meanwhile is seen too. What it
// finds is recorded (Meta.OverlappedWith), never hidden and never made a
// reason to call the run invalid: the numbers were measured, under load.
type overlapWatch struct {
	cli    overlapLister
	mine   string // our session id
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	others map[string]bool
	errs   []string // why the watch may have missed something
}

// startOverlapWatch lists the live containers of other sessions and
// subscribes to container starts. Failures are kept (see stop), never
// fatal: the watch only adds information.
func startOverlapWatch(ctx context.Context, cli overlapLister, mine string) *overlapWatch {
	w := &overlapWatch{cli: cli, mine: mine, others: map[string]bool{}, done: make(chan struct{})}
	w.list(ctx)
	f := client.Filters{}
	f.Add("type", string(events.ContainerEventType))
	f.Add("event", string(events.ActionStart))
	f.Add("label", docker.LabelManaged+"=1")
	ectx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w.cancel = cancel
	res := cli.Events(ectx, client.EventsListOptions{Filters: f})
	go w.follow(ectx, res.Messages, res.Err)
	return w
}

// list notes the sessions of the running managed containers now.
func (w *overlapWatch) list(ctx context.Context) {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), overlapCallTimeout)
	defer cancel()
	f := client.Filters{}
	f.Add("label", docker.LabelManaged+"=1")
	res, err := w.cli.ContainerList(lctx, client.ContainerListOptions{Filters: f}) // running only
	if err != nil {
		w.note("container list: " + err.Error())
		return
	}
	w.addRunning(res.Items)
}

// addRunning notes the other sessions among running containers.
func (w *overlapWatch) addRunning(cs []container.Summary) {
	for _, c := range cs {
		if c.State == container.StateRunning || c.State == "" {
			w.add(c.Labels)
		}
	}
}

// add notes the session of an object with these labels, if it is not ours.
func (w *overlapWatch) add(labels map[string]string) {
	s := labels[docker.LabelSession]
	if labels[docker.LabelManaged] != "1" || s == "" || s == w.mine {
		return
	}
	w.mu.Lock()
	w.others[s] = true
	w.mu.Unlock()
}

func (w *overlapWatch) note(msg string) {
	w.mu.Lock()
	w.errs = append(w.errs, msg)
	w.mu.Unlock()
}

// follow notes the session of every managed container that starts, until
// ctx ends or the stream fails. An event's attributes carry the
// container's labels.
func (w *overlapWatch) follow(ctx context.Context, msgs <-chan events.Message, errs <-chan error) {
	defer close(w.done)
	for {
		select {
		case m := <-msgs:
			w.add(m.Actor.Attributes)
		case err, ok := <-errs:
			if ok && err != nil && ctx.Err() == nil {
				w.note("events: " + err.Error())
			}
			return
		case <-ctx.Done():
			return
		}
	}
}

// stop lists the live containers once more, ends the event stream and
// returns the other sessions seen (sorted) and what may have been missed.
func (w *overlapWatch) stop(ctx context.Context) (sessions, problems []string) {
	w.list(ctx)
	w.cancel()
	t := time.NewTimer(overlapCallTimeout)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		w.note("events: stream did not end")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Sorted(maps.Keys(w.others)), slices.Clone(w.errs)
}
