package kubeapi

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// store is a wait's view of one kind of object: the current objects by
// name, kept by a stream. It tells changes on its notify channel.
type store struct {
	mu     *sync.Mutex
	objs   map[string]runtime.Object
	match  func(runtime.Object) bool // nil: all
	notify chan struct{}
	lastNs *int64 // arrival of the latest change, shared by a wait's stores
}

func newStore(mu *sync.Mutex, notify chan struct{}, lastNs *int64, match func(runtime.Object) bool) *store {
	return &store{mu: mu, objs: map[string]runtime.Object{}, match: match, notify: notify, lastNs: lastNs}
}

func (s *store) listed(objs []runtime.Object, nowNs int64, _ bool) {
	s.mu.Lock()
	clear(s.objs)
	for _, o := range objs {
		s.put(o)
	}
	*s.lastNs = nowNs
	s.mu.Unlock()
	s.poke()
}

func (s *store) event(t watch.EventType, obj runtime.Object, nowNs int64) {
	s.mu.Lock()
	if t == watch.Deleted {
		if m, err := meta.Accessor(obj); err == nil {
			delete(s.objs, m.GetName())
		}
	} else {
		s.put(obj)
	}
	*s.lastNs = nowNs
	s.mu.Unlock()
	s.poke()
}

// put keeps obj when it matches (the fake clientset's watch ignores
// selectors; a real server's label-selected watch sends Deleted for an
// object that stops matching).
func (s *store) put(obj runtime.Object) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if s.match != nil && !s.match(obj) {
		delete(s.objs, m.GetName())
		return
	}
	s.objs[m.GetName()] = obj
}

func (s *store) poke() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// sorted returns the objects ordered by name; call with mu held.
func (s *store) sorted() []runtime.Object {
	names := make([]string, 0, len(s.objs))
	for n := range s.objs {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]runtime.Object, len(names))
	for i, n := range names {
		out[i] = s.objs[n]
	}
	return out
}

// waiter runs streams into stores and re-evaluates a condition after each
// change, until it holds, fails, or the timeout or ctx ends.
type waiter struct {
	what    string // "deployment ns/name available": for errors
	timeout time.Duration
	mu      sync.Mutex
	notify  chan struct{}
	lastNs  int64
	streams []*stream
	// explain, when set, completes a PodStartError (outside mu: it may
	// ask the API).
	explain func(*PodStartError)
}

func newWaiter(what string, timeout time.Duration) *waiter {
	return &waiter{what: what, timeout: timeout, notify: make(chan struct{}, 1)}
}

// watch adds a stream of src (with opts' selectors) into a new store.
func (w *waiter) watch(what string, src lister, opts metav1.ListOptions, match func(runtime.Object) bool) *store {
	st := newStore(&w.mu, w.notify, &w.lastNs, match)
	w.streams = append(w.streams, &stream{what: what, src: src, opts: opts, h: st})
	return st
}

// errTimeout marks a wait that reached its timeout.
var errTimeout = errors.New("timed out")

// run starts the streams and calls check (with w.mu held) after each
// change: done ends the wait (doneNs: when the change that made it done
// arrived), an error fails it. At the timeout the error says what was
// waited for and state()'s account of the last state seen (errTimeout);
// ctx's end gives ctx's error. Nothing is left running when it returns.
func (w *waiter) run(ctx context.Context, check func() (bool, error), state func() string) (doneNs int64, err error) {
	if w.timeout <= 0 {
		return 0, fmt.Errorf("wait for %s: no timeout given", w.what)
	}
	wctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	failed := make(chan error, len(w.streams))
	for i, s := range w.streams {
		s.fail = func(err error) { failed <- err }
		if err := s.start(wctx); err != nil {
			stopUnstarted(w.streams[:i]...)
			return 0, w.ended(ctx, wctx, err, state)
		}
	}
	var wg sync.WaitGroup
	for _, s := range w.streams {
		wg.Go(func() { s.run(wctx) })
	}
	defer wg.Wait()
	defer cancel() // before wg.Wait: the streams end with wctx
	for {
		w.mu.Lock()
		done, err := check()
		at := w.lastNs
		w.mu.Unlock()
		if err != nil {
			var pse *PodStartError
			if errors.As(err, &pse) && w.explain != nil {
				w.explain(pse)
			}
			return 0, fmt.Errorf("wait for %s: %w", w.what, err)
		}
		if done {
			return at, nil
		}
		select {
		case <-w.notify:
		case err := <-failed:
			return 0, fmt.Errorf("wait for %s: %w", w.what, err)
		case <-wctx.Done():
			return 0, w.ended(ctx, wctx, wctx.Err(), state)
		}
	}
}

// ended words the end of a wait by its timeout or its caller's ctx.
func (w *waiter) ended(ctx, wctx context.Context, err error, state func() string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("wait for %s: %w", w.what, ctx.Err())
	}
	if wctx.Err() != nil {
		w.mu.Lock()
		s := state()
		w.mu.Unlock()
		if s != "" {
			s = "; last seen: " + s
		}
		return fmt.Errorf("wait for %s: %w after %s%s", w.what, errTimeout, w.timeout, s)
	}
	return fmt.Errorf("wait for %s: %w", w.what, err)
}
