package swarm

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"
)

// Event is one engine event of a service's container: the engine's own
// record of when each task's container started, got a signal, changed
// health and died.
type Event struct {
	// TimeNs is the engine's timestamp (Unix ns).
	TimeNs int64 `json:"time_ns"`
	// Action is the engine's action: create, start, kill, die, oom,
	// destroy, or "health_status: healthy" / "health_status: unhealthy".
	Action string `json:"action"`
	// ContainerID and TaskID name the container and its task.
	ContainerID string `json:"container_id"`
	TaskID      string `json:"task_id,omitempty"`
	// Signal is a kill event's signal number (15, 9, ...).
	Signal int `json:"signal,omitempty"`
	// ExitCode is a die event's exit code.
	ExitCode *int `json:"exit_code,omitempty"`
}

// The health events' actions.
const (
	ActionHealthy   = "health_status: healthy"
	ActionUnhealthy = "health_status: unhealthy"
)

// Watch collects a service's container events from the engine's stream.
type Watch struct {
	mu     sync.Mutex
	events []Event
	err    error
	cancel context.CancelFunc
	done   chan struct{}
}

// WatchService subscribes to the container events of service id (by its
// task containers' service label), less the exec events of its health
// checks. The subscription is under way when it
// returns; Stop ends it, and ctx bounds it.
func (e *Engine) WatchService(ctx context.Context, id string) (*Watch, error) {
	wctx, cancel := context.WithCancel(ctx)
	f := client.Filters{}
	f.Add("type", string(events.ContainerEventType))
	f.Add("label", LabelServiceID+"="+id)
	res := e.cli.Events(wctx, client.EventsListOptions{Filters: f})
	w := &Watch{cancel: cancel, done: make(chan struct{})}
	select {
	case err := <-res.Err:
		cancel()
		return nil, fmt.Errorf("events (service %s): %w", id, err)
	case <-time.After(20 * time.Millisecond):
	}
	go w.follow(wctx, res)
	return w, nil
}

func (w *Watch) follow(ctx context.Context, res client.EventsResult) {
	defer close(w.done)
	for {
		select {
		case m := <-res.Messages:
			if strings.HasPrefix(string(m.Action), "exec_") {
				continue // the health check's own runs: noise
			}
			ev := eventOf(m)
			w.mu.Lock()
			w.events = append(w.events, ev)
			w.mu.Unlock()
		case err := <-res.Err:
			if ctx.Err() == nil {
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
			}
			return
		case <-ctx.Done():
			return
		}
	}
}

// eventOf converts one engine message. Pure.
func eventOf(m events.Message) Event {
	t := m.TimeNano
	if t == 0 {
		t = m.Time * int64(time.Second)
	}
	ev := Event{TimeNs: t, Action: string(m.Action), ContainerID: m.Actor.ID, TaskID: m.Actor.Attributes[LabelTaskID]}
	switch {
	case ev.Action == string(events.ActionKill):
		ev.Signal, _ = strconv.Atoi(m.Actor.Attributes["signal"])
	case ev.Action == string(events.ActionDie):
		if c, err := strconv.Atoi(m.Actor.Attributes["exitCode"]); err == nil {
			ev.ExitCode = &c
		}
	}
	return ev
}

// Snapshot returns the events seen so far, in arrival order.
func (w *Watch) Snapshot() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Event(nil), w.events...)
}

// Stop ends the subscription after grace (for events still in the
// stream) and returns every event seen, with the stream's error if it
// broke early.
func (w *Watch) Stop(grace time.Duration) ([]Event, error) {
	if grace > 0 {
		time.Sleep(grace)
	}
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Event(nil), w.events...), w.err
}
