package docker

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

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
type KillWatch struct {
	mu     sync.Mutex
	events []KillEvent
	err    error
	cancel context.CancelFunc
	done   chan struct{}
}

// WatchKills subscribes to the engine's kill events for container id. The
// subscription is established before it returns, so no event emitted after
// that is missed. Stop ends it; ctx bounds it too.
func (e *Engine) WatchKills(ctx context.Context, id string) (*KillWatch, error) {
	wctx, cancel := context.WithCancel(ctx)
	f := client.Filters{}
	f.Add("type", string(events.ContainerEventType))
	f.Add("container", id)
	f.Add("event", string(events.ActionKill))
	res := e.cli.Events(wctx, client.EventsListOptions{Filters: f})
	w := &KillWatch{cancel: cancel, done: make(chan struct{})}
	// Events returns once the request is under way; a daemon that refused
	// it reports on Err at once.
	select {
	case err := <-res.Err:
		cancel()
		return nil, fmt.Errorf("events: %w", err)
	case <-time.After(20 * time.Millisecond):
	}
	go w.follow(wctx, res)
	return w, nil
}

// NewKillWatch returns a KillWatch fed from events instead of the engine's
// event stream, for an engine that stands in for Engine in tests. It
// collects what arrives on events until Stop (taking what is already
// buffered there when Stop is called) or until events is closed.
func NewKillWatch(events <-chan KillEvent) *KillWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &KillWatch{cancel: cancel, done: make(chan struct{})}
	add := func(e KillEvent) {
		w.mu.Lock()
		w.events = append(w.events, e)
		w.mu.Unlock()
	}
	go func() {
		defer close(w.done)
		for {
			var e KillEvent
			ok := true
			select {
			case e, ok = <-events:
			case <-ctx.Done():
				// Stopped: take what is already buffered, then end.
				select {
				case e, ok = <-events:
				default:
					return
				}
			}
			if !ok {
				return
			}
			add(e)
		}
	}()
	return w
}

func (w *KillWatch) follow(ctx context.Context, res client.EventsResult) {
	defer close(w.done)
	for {
		select {
		case m := <-res.Messages:
			sig, _ := strconv.Atoi(m.Actor.Attributes["signal"])
			t := m.TimeNano
			if t == 0 {
				t = m.Time * int64(time.Second)
			}
			w.mu.Lock()
			w.events = append(w.events, KillEvent{TimeNs: t, Signal: sig})
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

// Stop ends the subscription after a short grace for events still in the
// stream, and returns the kill events seen, in arrival order, with the
// stream's error if it broke early.
func (w *KillWatch) Stop(grace time.Duration) ([]KillEvent, error) {
	if grace > 0 {
		time.Sleep(grace)
	}
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]KillEvent(nil), w.events...), w.err
}
