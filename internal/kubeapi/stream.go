package kubeapi

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// handler receives what a stream sees. Calls come from one goroutine at a
// time (the stream's), each with the time the observation arrived on this
// host (Unix ns).
type handler interface {
	// listed is a list's result: the initial one (initial true), or a
	// re-list after the server forgot the watch's resourceVersion, whose
	// objects are then the whole current set (an object known before and
	// absent now was deleted in between).
	listed(objs []runtime.Object, nowNs int64, initial bool)
	// event is one watch event: Added, Modified or Deleted.
	event(t watch.EventType, obj runtime.Object, nowNs int64)
}

// lister lists and watches one kind of object in one namespace.
type lister struct {
	list  func(ctx context.Context, o metav1.ListOptions) ([]runtime.Object, string, error)
	watch func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error)
}

// Re-establishing a watch: at most streamRetries consecutive failures (a
// watch call refused, or a watch that closed at once without an event),
// waiting streamBackoff, doubled each time up to streamBackoffMax
// (variables for tests).
var (
	streamRetries    = 5
	streamBackoff    = 200 * time.Millisecond
	streamBackoffMax = 2 * time.Second
)

// stream lists then watches one kind of object, from the list's
// resourceVersion, and re-establishes the watch from the last
// resourceVersion it saw when the server closes it.
type stream struct {
	what string // "pods in ns x (app=y)": names it in messages
	src  lister
	opts metav1.ListOptions // selectors
	h    handler
	// gap is told about a break after which observations were lost but
	// the stream goes on (a re-list); fail about the stream's end before
	// its context's (it could not be re-established). Either may be nil.
	gap  func(msg string)
	fail func(err error)

	rv string
	w  watch.Interface
}

// start makes the initial list and opens the first watch. On error
// nothing is left open.
func (s *stream) start(ctx context.Context) error {
	if err := s.relist(ctx, true); err != nil {
		return err
	}
	w, err := s.openWatch(ctx)
	if err != nil {
		return fmt.Errorf("watch %s: %w", s.what, err)
	}
	s.w = w
	return nil
}

func (s *stream) relist(ctx context.Context, initial bool) error {
	objs, rv, err := s.src.list(ctx, s.opts)
	now := time.Now().UnixNano()
	if err != nil {
		return fmt.Errorf("list %s: %w", s.what, err)
	}
	s.rv = rv
	s.h.listed(objs, now, initial)
	return nil
}

func (s *stream) openWatch(ctx context.Context) (watch.Interface, error) {
	o := s.opts
	o.ResourceVersion = s.rv
	o.AllowWatchBookmarks = true
	return s.src.watch(ctx, o)
}

// run consumes the watch until ctx ends (then it returns quietly) or the
// watch cannot be re-established (then it tells fail). Call it once,
// after a successful start.
func (s *stream) run(ctx context.Context) {
	failures := 0
	for {
		began := time.Now()
		n, err := s.consume(ctx)
		s.w.Stop()
		s.w = nil
		if ctx.Err() != nil {
			return
		}
		if n > 0 || time.Since(began) > time.Second {
			failures = 0 // a watch that worked a while: its end is the server's ordinary timeout
		} else {
			failures++
		}
		for s.w == nil {
			if failures > streamRetries {
				s.failed(fmt.Errorf("watch %s ended at %s and could not be re-established (%d tries): %v",
					s.what, time.Now().UTC().Format(time.RFC3339Nano), streamRetries, err))
				return
			}
			if failures > 0 && !sleep(ctx, backoff(failures)) {
				return
			}
			if isExpired(err) {
				// The server no longer has our resourceVersion: list again.
				at := time.Now().UTC().Format(time.RFC3339Nano)
				if lerr := s.relist(ctx, false); lerr != nil {
					if ctx.Err() != nil {
						return
					}
					err = lerr
					failures++
					continue
				}
				if s.gap != nil {
					s.gap(fmt.Sprintf("watch %s: resourceVersion expired, re-listed at %s: changes before that were seen only as the list's state", s.what, at))
				}
			}
			w, werr := s.openWatch(ctx)
			if werr != nil {
				if ctx.Err() != nil {
					return
				}
				err = werr
				failures++
				continue
			}
			s.w = w
		}
	}
}

// consume reads s.w until it closes, delivers an error, or ctx ends; n is
// how many objects it delivered.
func (s *stream) consume(ctx context.Context) (n int, err error) {
	for {
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case ev, ok := <-s.w.ResultChan():
			now := time.Now().UnixNano()
			if !ok {
				return n, nil
			}
			switch ev.Type {
			case watch.Error:
				return n, apierrors.FromObject(ev.Object)
			case watch.Bookmark:
				if m, merr := meta.Accessor(ev.Object); merr == nil && m.GetResourceVersion() != "" {
					s.rv = m.GetResourceVersion()
				}
			case watch.Added, watch.Modified, watch.Deleted:
				if m, merr := meta.Accessor(ev.Object); merr == nil && m.GetResourceVersion() != "" {
					s.rv = m.GetResourceVersion()
				}
				n++
				s.h.event(ev.Type, ev.Object, now)
			}
		}
	}
}

func (s *stream) failed(err error) {
	if s.fail != nil {
		s.fail(err)
	}
}

// isExpired says the server no longer has the resourceVersion asked for.
func isExpired(err error) bool {
	return err != nil && (apierrors.IsResourceExpired(err) || apierrors.IsGone(err))
}

func backoff(failures int) time.Duration {
	d := streamBackoff
	for i := 1; i < failures && d < streamBackoffMax; i++ {
		d *= 2
	}
	return min(d, streamBackoffMax)
}

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// stopUnstarted closes the watches of streams whose run never began.
func stopUnstarted(ss ...*stream) {
	for _, s := range ss {
		if s != nil && s.w != nil {
			s.w.Stop()
			s.w = nil
		}
	}
}
