package docker

import (
	"context"
	"strconv"

	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"
)

// KillEvent is one "kill" event the engine emitted for a container: the
// daemon sends it right after it has handed the signal to the container's
// process (docker kill, and each signal of docker stop: the stop signal,
// then SIGKILL at the end of the grace period).
type KillEvent struct {
	// TimeNs is the daemon's timestamp of the event (Unix ns, host clock).
	TimeNs int64
	// Signal is the signal number the daemon reported (15, 9, ...); 0 when
	// the event carried none.
	Signal int
}

// KillWatch collects the kill events of one container from the engine's
// event stream. Start it before the action and read it after: it is an
// upper bound, measured by the engine, on when each signal reached the
// process.
type KillWatch = EventWatch[KillEvent]

// WatchKills subscribes to the engine's kill events for container id. The
// subscription is established before it returns, so no event emitted after
// that is missed. Stop ends it; ctx bounds it too.
func (e *Engine) WatchKills(ctx context.Context, id string) (*KillWatch, error) {
	f := client.Filters{}
	f.Add("type", string(events.ContainerEventType))
	f.Add("container", id)
	f.Add("event", string(events.ActionKill))
	return WatchEvents(ctx, e.cli, f, "events", killEventOf)
}

// NewKillWatch returns a KillWatch fed from events instead of the engine's
// event stream, for an engine that stands in for Engine in tests. It
// collects what arrives on events until Stop (taking what is already
// buffered there when Stop is called) or until events is closed.
func NewKillWatch(events <-chan KillEvent) *KillWatch { return NewEventWatch(events) }

// killEventOf converts one kill message. Pure.
func killEventOf(m events.Message) (KillEvent, bool) {
	sig, _ := strconv.Atoi(m.Actor.Attributes["signal"])
	return KillEvent{TimeNs: EventTimeNs(m), Signal: sig}, true
}
