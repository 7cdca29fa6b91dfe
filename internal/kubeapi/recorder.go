package kubeapi

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/shutdownlab/shutdownlab/record"
)

// Recorder is a run's observation of the cluster: watches on the target's
// pods, the namespace's events and the target Service's EndpointSlices,
// folded into a record.Kubernetes. Its methods are safe for concurrent
// use.
type Recorder struct {
	mu      sync.Mutex
	rec     record.Kubernetes
	pods    map[string]*podTrack // by UID
	order   []string             // UIDs, first seen first
	events  map[string]eventSeen // by UID
	eps     *endpointTracker
	podSel  labels.Selector
	service string
	stopped bool
	ended   bool // noteEnd done

	parent      context.Context
	stopEndNote func() bool

	cancel   context.CancelFunc
	wg       sync.WaitGroup
	stopOnce sync.Once
	final    record.Kubernetes
}

// eventSeen is what was recorded of an event: a change of either is a
// new occurrence.
type eventSeen struct {
	count  int
	timeNs int64
}

// Watch starts watches in namespace ns only: on the pods matching label
// selector podSelector, on the namespace's events, and on the
// EndpointSlices of Service service (label kubernetes.io/service-name).
// Each lists first and watches from the list's resourceVersion; what the
// lists hold is recorded as observed at the list's arrival. The watches
// are under way when it returns, and run until Stop or ctx's end; the
// Recorder's record has Context, Server, ServerVersion, Namespace and
// Service filled in.
func (c *Client) Watch(ctx context.Context, ns, podSelector, service string) (*Recorder, error) {
	sel, err := labels.Parse(podSelector)
	if err != nil {
		return nil, fmt.Errorf("watch pods in %s: selector %q: %w", ns, podSelector, err)
	}
	r := &Recorder{
		rec: record.Kubernetes{Context: c.info.Context, Server: c.info.Server, ServerVersion: c.info.ServerVersion,
			Namespace: ns, Service: service, Pods: []record.KubePod{}},
		pods: map[string]*podTrack{}, events: map[string]eventSeen{}, eps: newEndpointTracker(),
		podSel: sel, service: service,
	}
	svcSel := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: service})
	streams := []*stream{
		{what: fmt.Sprintf("pods in %s (%s)", ns, sel), src: c.pods(ns),
			opts: metav1.ListOptions{LabelSelector: sel.String()}, h: podHandler{r}},
		{what: "events in " + ns, src: c.events(ns), h: eventHandler{r}},
		{what: fmt.Sprintf("endpointslices in %s (%s)", ns, svcSel), src: c.endpointSlices(ns),
			opts: metav1.ListOptions{LabelSelector: svcSel.String()}, h: sliceHandler{r}},
	}
	wctx, cancel := context.WithCancel(ctx)
	r.cancel = cancel
	for i, s := range streams {
		s.gap = r.note
		s.fail = func(err error) { r.note(err.Error()) }
		if err := s.start(wctx); err != nil {
			stopUnstarted(streams[:i]...)
			cancel()
			return nil, err
		}
	}
	for _, s := range streams {
		r.wg.Go(func() { s.run(wctx) })
	}
	// The caller's ctx ending before Stop loses what comes after: say so.
	r.parent = ctx
	r.stopEndNote = context.AfterFunc(ctx, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.noteEnd()
	})
	return r, nil
}

// noteEnd says in WatchError that the caller's ctx ended the watches
// before Stop; call with mu held.
func (r *Recorder) noteEnd() {
	if r.stopped || r.ended {
		return
	}
	r.ended = true
	r.noteLocked(fmt.Sprintf("watches ended at %s, before Stop: %v", time.Now().UTC().Format(time.RFC3339Nano), context.Cause(r.parent)))
}

// note adds a break to WatchError (each said once).
func (r *Recorder) note(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noteLocked(msg)
}

func (r *Recorder) noteLocked(msg string) {
	if strings.Contains(r.rec.WatchError, msg) {
		return
	}
	if r.rec.WatchError != "" {
		r.rec.WatchError += "; "
	}
	r.rec.WatchError += msg
}

// Stop waits grace (for events still in flight), ends the watches and
// returns the observations, in the order they arrived. Later calls return
// the same.
func (r *Recorder) Stop(grace time.Duration) record.Kubernetes {
	r.stopOnce.Do(func() {
		if grace > 0 {
			time.Sleep(grace)
		}
		r.mu.Lock()
		if r.parent.Err() != nil {
			r.noteEnd()
		}
		r.stopped = true
		r.mu.Unlock()
		r.stopEndNote()
		r.cancel()
		r.wg.Wait()
		r.final = r.Snapshot()
	})
	return r.final
}

// Snapshot returns a copy of the observations so far.
func (r *Recorder) Snapshot() record.Kubernetes {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.rec
	k.Pods = make([]record.KubePod, 0, len(r.order))
	for _, uid := range r.order {
		k.Pods = append(k.Pods, r.pods[uid].kp) // pointer fields are never changed in place
	}
	k.Events = slices.Clone(r.rec.Events)
	k.Endpoints = slices.Clone(r.rec.Endpoints)
	return k
}

// podHandler folds the pod watch into the record.
type podHandler struct{ r *Recorder }

func (h podHandler) listed(objs []runtime.Object, nowNs int64, initial bool) {
	r := h.r
	r.mu.Lock()
	defer r.mu.Unlock()
	present := map[string]bool{}
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok && r.podSel.Matches(labels.Set(p.Labels)) {
			present[string(p.UID)] = true
			r.observePod(p, nowNs, false)
		}
	}
	if !initial {
		for uid, t := range r.pods {
			if !present[uid] && t.kp.GoneNs == 0 {
				t.kp.GoneNs = nowNs // went while the watch was broken: seen at the re-list
			}
		}
	}
}

func (h podHandler) event(t watch.EventType, obj runtime.Object, nowNs int64) {
	p, ok := obj.(*corev1.Pod)
	if !ok || !h.r.podSel.Matches(labels.Set(p.Labels)) {
		return
	}
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	h.r.observePod(p, nowNs, t == watch.Deleted)
}

// observePod records p; call with mu held.
func (r *Recorder) observePod(p *corev1.Pod, nowNs int64, gone bool) {
	uid := string(p.UID)
	if uid == "" {
		uid = "name:" + p.Name
	}
	t := r.pods[uid]
	if t == nil {
		t = &podTrack{}
		r.pods[uid] = t
		r.order = append(r.order, uid)
	}
	t.observe(p, nowNs, gone)
}

// eventHandler records each event once per occurrence.
type eventHandler struct{ r *Recorder }

func (h eventHandler) listed(objs []runtime.Object, nowNs int64, _ bool) {
	for _, o := range objs {
		h.event(watch.Added, o, nowNs)
	}
}

func (h eventHandler) event(t watch.EventType, obj runtime.Object, nowNs int64) {
	ev, ok := obj.(*corev1.Event)
	if !ok || t == watch.Deleted {
		return // events expire (1 h by default): nothing happened
	}
	key := string(ev.UID)
	if key == "" {
		key = "name:" + ev.Name
	}
	count := int(ev.Count)
	if ev.Series != nil {
		count = int(ev.Series.Count)
	}
	seen := eventSeen{count: count, timeNs: eventTimeNs(ev)}
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	if prev, ok := h.r.events[key]; ok && prev == seen {
		return
	}
	h.r.events[key] = seen
	h.r.rec.Events = append(h.r.rec.Events, record.KubeEvent{
		ObservedNs: nowNs, TimeNs: seen.timeNs, Type: ev.Type, Reason: ev.Reason, Message: ev.Message,
		Kind: ev.InvolvedObject.Kind, Name: ev.InvolvedObject.Name, Count: count,
	})
}

// sliceHandler turns EndpointSlice states into endpoint changes.
type sliceHandler struct{ r *Recorder }

func (h sliceHandler) listed(objs []runtime.Object, nowNs int64, initial bool) {
	keep := map[string]bool{}
	for _, o := range objs {
		if s, ok := o.(*discoveryv1.EndpointSlice); ok && h.ours(s) {
			keep[s.Name] = true
			h.event(watch.Modified, s, nowNs)
		}
	}
	if !initial {
		h.r.mu.Lock()
		defer h.r.mu.Unlock()
		for _, name := range h.r.eps.slicesNot(keep) {
			h.r.rec.Endpoints = append(h.r.rec.Endpoints, h.r.eps.apply(name, nil, nowNs)...)
		}
	}
}

func (h sliceHandler) event(t watch.EventType, obj runtime.Object, nowNs int64) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok || !h.ours(s) {
		return
	}
	eps := endpointsOf(s)
	if t == watch.Deleted {
		eps = nil
	}
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	h.r.rec.Endpoints = append(h.r.rec.Endpoints, h.r.eps.apply(s.Name, eps, nowNs)...)
}

func (h sliceHandler) ours(s *discoveryv1.EndpointSlice) bool {
	return s.Labels[discoveryv1.LabelServiceName] == h.r.service
}
