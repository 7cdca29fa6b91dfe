package swarm

import (
	"context"
	"strconv"
	"strings"

	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
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
type Watch = docker.EventWatch[Event]

// WatchService subscribes to the container events of service id (by its
// task containers' service label), less the exec events of its health
// checks. The subscription is under way when it
// returns; Stop ends it, and ctx bounds it.
func (e *Engine) WatchService(ctx context.Context, id string) (*Watch, error) {
	f := client.Filters{}
	f.Add("type", string(events.ContainerEventType))
	f.Add("label", LabelServiceID+"="+id)
	return docker.WatchEvents(ctx, e.cli, f, "events (service "+id+")", func(m events.Message) (Event, bool) {
		if strings.HasPrefix(string(m.Action), "exec_") {
			return Event{}, false // the health check's own runs: noise
		}
		return eventOf(m), true
	})
}

// eventOf converts one engine message. Pure.
func eventOf(m events.Message) Event {
	ev := Event{TimeNs: docker.EventTimeNs(m), Action: string(m.Action), ContainerID: m.Actor.ID, TaskID: m.Actor.Attributes[LabelTaskID]}
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
