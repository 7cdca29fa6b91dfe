package docker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"
)

// EventWatch collects engine events of one kind, converted to T, from the
// engine's event stream (or, in tests, from a channel): the one follow
// loop behind a replica's kill events ([KillWatch]) and a Swarm service's
// container events. Start it before what it observes and stop it after.
type EventWatch[T any] struct {
	mu     sync.Mutex
	events []T
	err    error
	cancel context.CancelFunc
	done   chan struct{}
}

// WatchEvents subscribes to the engine's events matching f, keeping each
// message convert accepts. The subscription is under way when it returns
// (a daemon that refuses it reports at once, the error prefixed with
// what); Stop ends it, and ctx bounds it too.
func WatchEvents[T any](ctx context.Context, cli *client.Client, f client.Filters, what string, convert func(events.Message) (T, bool)) (*EventWatch[T], error) {
	wctx, cancel := context.WithCancel(ctx)
	res := cli.Events(wctx, client.EventsListOptions{Filters: f})
	w := &EventWatch[T]{cancel: cancel, done: make(chan struct{})}
	// Events returns once the request is under way; a daemon that refused
	// it reports on Err at once.
	select {
	case err := <-res.Err:
		cancel()
		return nil, fmt.Errorf("%s: %w", what, err)
	case <-time.After(20 * time.Millisecond):
	}
	go w.follow(wctx, res, convert)
	return w, nil
}

// NewEventWatch returns an EventWatch fed from ch instead of the engine's
// event stream, for an engine that stands in for Engine in tests. It
// collects what arrives on ch until Stop (taking what is already buffered
// there when Stop is called) or until ch is closed.
func NewEventWatch[T any](ch <-chan T) *EventWatch[T] {
	ctx, cancel := context.WithCancel(context.Background())
	w := &EventWatch[T]{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			var e T
			ok := true
			select {
			case e, ok = <-ch:
			case <-ctx.Done():
				// Stopped: take what is already buffered, then end.
				select {
				case e, ok = <-ch:
				default:
					return
				}
			}
			if !ok {
				return
			}
			w.add(e)
		}
	}()
	return w
}

func (w *EventWatch[T]) add(e T) {
	w.mu.Lock()
	w.events = append(w.events, e)
	w.mu.Unlock()
}

func (w *EventWatch[T]) follow(ctx context.Context, res client.EventsResult, convert func(events.Message) (T, bool)) {
	defer close(w.done)
	for {
		select {
		case m := <-res.Messages:
			if e, ok := convert(m); ok {
				w.add(e)
			}
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

// Snapshot returns the events seen so far, in arrival order.
func (w *EventWatch[T]) Snapshot() []T {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]T(nil), w.events...)
}

// Stop ends the subscription after grace (for events still in the
// stream) and returns every event seen, in arrival order, with the
// stream's error if it broke early.
func (w *EventWatch[T]) Stop(grace time.Duration) ([]T, error) {
	if grace > 0 {
		time.Sleep(grace)
	}
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]T(nil), w.events...), w.err
}

// EventTimeNs is a message's timestamp in Unix ns (the daemon's
// nanoseconds, else its seconds).
func EventTimeNs(m events.Message) int64 {
	if m.TimeNano != 0 {
		return m.TimeNano
	}
	return m.Time * int64(time.Second)
}
