package kubeapi

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// slice is EndpointSlice name of Service svc with endpoints ("ip pod rst",
// see ep).
func slice(name, svc string, endpoints ...[3]string) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: name, Namespace: testNS, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	for _, e := range endpoints {
		k, c := ep(e[0], e[1], e[2])
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{k.IP},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Name: k.Pod},
			Conditions: discoveryv1.EndpointConditions{Ready: c.Ready, Serving: c.Serving, Terminating: c.Terminating}})
	}
	return s
}

// eventually polls cond for up to 5 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("never: %s", what)
}

func TestRecorderPodAndEndpointLifecycle(t *testing.T) {
	noLeak(t)
	a := [3]string{"10.88.0.5", "target-a", "ttf"}
	c, cs := newFake(t,
		pod("target-a", running(1001), ready(true)),
		pod("agent", func(p *corev1.Pod) { p.Labels = map[string]string{"app": "agent"} }),
		slice("target-x1", "target", a),
		slice("other-x1", "other", [3]string{"10.88.0.9", "other-a", "ttf"}),
		warning("old", "target-a", "Unhealthy", "Readiness probe failed", 1002),
	)
	ctx := ctxT(t)
	start := time.Now().UnixNano()
	r, err := c.Watch(ctx, testNS, "app=target", "target")
	if err != nil {
		t.Fatal(err)
	}
	// Read while it records (for the race detector).
	var wg sync.WaitGroup
	stopReading := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stopReading:
				return
			default:
				_ = r.Snapshot()
				time.Sleep(time.Millisecond)
			}
		}
	})
	pods, slices, evs := cs.CoreV1().Pods(testNS), cs.DiscoveryV1().EndpointSlices(testNS), cs.CoreV1().Events(testNS)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	upd := metav1.UpdateOptions{}
	// The pod is deleted: the API sets its deletionTimestamp, the
	// EndpointSlice controller marks its endpoint terminating, the kubelet
	// reports it not ready, then its container's exit, then it goes.
	must(pods.Update(ctx, pod("target-a", running(1001), ready(true), deleting(1030, 30)), upd))
	must(slices.Update(ctx, slice("target-x1", "target", [3]string{"10.88.0.5", "target-a", "ftt"}), upd))
	must(evs.Create(ctx, warning("kill", "target-a", "Killing", "Stopping container app", 1000), metav1.CreateOptions{}))
	must(pods.Update(ctx, pod("target-a", running(1001), ready(false), deleting(1030, 30)), upd))
	kill := warning("kill", "target-a", "Killing", "Stopping container app", 1000)
	must(evs.Update(ctx, kill, upd)) // unchanged: not a new occurrence
	kill.Count, kill.LastTimestamp = 2, tm(1001)
	must(evs.Update(ctx, kill, upd))
	must(pods.Update(ctx, pod("target-a", terminated(0, "Completed", 1003), ready(false), deleting(1030, 30)), upd))
	must(nil, pods.Delete(ctx, "target-a", metav1.DeleteOptions{}))
	must(slices.Update(ctx, slice("target-x1", "target"), upd))
	// Other pods and other Services' slices are not recorded.
	must(slices.Update(ctx, slice("other-x1", "other"), upd))
	must(pods.Update(ctx, pod("agent", func(p *corev1.Pod) { p.Labels = map[string]string{"app": "agent"}; p.Status.Phase = corev1.PodRunning }), upd))
	eventually(t, "the pod gone and its endpoint removed", func() bool {
		k := r.Snapshot()
		return len(k.Pods) == 1 && k.Pods[0].GoneNs != 0 && len(k.Endpoints) == 3
	})
	close(stopReading)
	wg.Wait()
	k := r.Stop(50 * time.Millisecond)
	end := time.Now().UnixNano()

	if k.Context != "test" || k.Server != "https://fake" || k.ServerVersion != "v1.34.4" || k.Namespace != testNS || k.Service != "target" || k.WatchError != "" {
		t.Errorf("header %+v", k)
	}
	if len(k.Pods) != 1 {
		t.Fatalf("pods %s", js(k.Pods))
	}
	p := k.Pods[0]
	inRun := func(ns int64) bool { return ns >= start && ns <= end }
	if !inRun(p.FirstSeenNs) || p.FirstSeenNs != p.RunningNs || p.FirstSeenNs != p.ReadyNs {
		t.Errorf("first seen %d, running %d, ready %d (all at the list)", p.FirstSeenNs, p.RunningNs, p.ReadyNs)
	}
	order := []int64{p.ReadyNs, p.DeletionSeenNs, p.NotReadyNs, p.TerminatedNs, p.GoneNs}
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] || !inRun(order[i]) {
			t.Errorf("ready, deletion seen, not ready, terminated, gone out of order: %v", order)
		}
	}
	if p.DeletionNs != 1030e9 || p.GraceS == nil || *p.GraceS != 30 || p.ExitCode == nil || *p.ExitCode != 0 || p.Reason != "Completed" ||
		p.FinishedAtNs != 1003e9 || p.StartedAtNs != 1001e9 || p.CreatedNs != 1000e9 || p.IP != "10.88.0.5" || p.TemplateHash != "h1" {
		t.Errorf("pod %s", js(p))
	}
	if d := describe(k.Endpoints); d != "target-a@10.88.0.5 ttf, target-a@10.88.0.5 ftt, target-a@10.88.0.5 removed" {
		t.Errorf("endpoints %s", d)
	}
	var evDesc []string
	for _, e := range k.Events {
		evDesc = append(evDesc, e.Reason+" "+e.Name+" "+strconv.Itoa(e.Count))
		if !inRun(e.ObservedNs) || e.Type != "Warning" || e.Kind != "Pod" {
			t.Errorf("event %+v", e)
		}
	}
	if got := strings.Join(evDesc, ", "); got != "Unhealthy target-a 1, Killing target-a 1, Killing target-a 2" {
		t.Errorf("events %s", got)
	}
	if k.Events[2].TimeNs != 1001e9 {
		t.Errorf("event time %d", k.Events[2].TimeNs)
	}
	for i := 1; i < len(k.Endpoints); i++ {
		if k.Endpoints[i].ObservedNs < k.Endpoints[i-1].ObservedNs {
			t.Errorf("endpoints out of arrival order")
		}
	}
	// Stop again: the same record.
	if again := r.Stop(0); js(again) != js(k) {
		t.Error("a second Stop differs")
	}
}

// firstWatch makes the first watch of resource res a FakeWatcher the test
// drives; later watches go to the fake's tracker (or fail, with failLater).
func firstWatch(cs *fake.Clientset, res string, failLater bool) *watch.FakeWatcher {
	fw := watch.NewFake()
	var mu sync.Mutex
	calls := 0
	cs.PrependWatchReactor(res, func(k8stesting.Action) (bool, watch.Interface, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		switch {
		case calls == 1:
			return true, fw, nil
		case failLater:
			return true, nil, apierrors.NewServiceUnavailable("apiserver restarting")
		}
		return false, nil, nil
	})
	return fw
}

func TestRecorderReestablishesWatch(t *testing.T) {
	noLeak(t)
	c, cs := newFake(t, pod("target-a", running(1001)))
	fw := firstWatch(cs, "pods", false)
	r, err := c.Watch(ctxT(t), testNS, "app=target", "target")
	if err != nil {
		t.Fatal(err)
	}
	fw.Stop() // the server closes the watch
	// A change after the watch is back is seen.
	time.Sleep(400 * time.Millisecond)
	if _, err := cs.CoreV1().Pods(testNS).UpdateStatus(ctxT(t), pod("target-a", running(1001), ready(true)), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "ready seen", func() bool { return r.Snapshot().Pods[0].ReadyNs != 0 })
	if k := r.Stop(0); k.WatchError != "" {
		t.Errorf("watch error %q after a lossless re-establishment", k.WatchError)
	}
}

func TestRecorderExpiredWatch(t *testing.T) {
	noLeak(t)
	c, cs := newFake(t, pod("target-a", running(1001)), pod("target-b", running(1001)))
	fw := firstWatch(cs, "pods", false)
	r, err := c.Watch(ctxT(t), testNS, "app=target", "target")
	if err != nil {
		t.Fatal(err)
	}
	// target-b goes while the watch hears nothing, then the server says
	// our resourceVersion is too old.
	if err := cs.Tracker().Delete(schema.GroupVersionResource{Version: "v1", Resource: "pods"}, testNS, "target-b"); err != nil {
		t.Fatal(err)
	}
	gone := apierrors.NewResourceExpired("too old resource version: 5 (10)").ErrStatus
	fw.Error(&gone)
	eventually(t, "target-b gone at the re-list", func() bool {
		k := r.Snapshot()
		return len(k.Pods) == 2 && k.Pods[1].GoneNs != 0
	})
	k := r.Stop(0)
	if !strings.Contains(k.WatchError, "resourceVersion expired, re-listed at") || k.Pods[0].GoneNs != 0 {
		t.Errorf("watch error %q, pods %s", k.WatchError, js(k.Pods))
	}
}

func TestRecorderGivesUp(t *testing.T) {
	noLeak(t)
	defer func(d, m time.Duration) { streamBackoff, streamBackoffMax = d, m }(streamBackoff, streamBackoffMax)
	streamBackoff, streamBackoffMax = time.Millisecond, 5*time.Millisecond
	c, cs := newFake(t)
	fw := firstWatch(cs, "endpointslices", true)
	r, err := c.Watch(ctxT(t), testNS, "app=target", "target")
	if err != nil {
		t.Fatal(err)
	}
	fw.Stop()
	eventually(t, "the watch given up", func() bool { return r.Snapshot().WatchError != "" })
	k := r.Stop(0)
	if !strings.Contains(k.WatchError, "could not be re-established (5 tries)") || !strings.Contains(k.WatchError, "apiserver restarting") {
		t.Errorf("watch error %q", k.WatchError)
	}
}

func TestRecorderContextEnds(t *testing.T) {
	noLeak(t)
	c, _ := newFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	r, err := c.Watch(ctx, testNS, "app=target", "target")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	k := r.Stop(0)
	if !strings.Contains(k.WatchError, "before Stop: context canceled") {
		t.Errorf("watch error %q", k.WatchError)
	}
	if k.Pods == nil {
		t.Error("pods is nil, not empty")
	}
}

func TestWatchErrors(t *testing.T) {
	noLeak(t)
	c, cs := newFake(t)
	if _, err := c.Watch(ctxT(t), testNS, "a in ((", "target"); err == nil {
		t.Error("bad selector: no error")
	}
	// The events list fails after the pods' watch started: nothing is left running.
	cs.PrependReactor("list", "events", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, "", nil)
	})
	_, err := c.Watch(ctxT(t), testNS, "app=target", "target")
	if err == nil || !strings.Contains(err.Error(), "list events in run-1") || !apierrors.IsForbidden(err) {
		t.Errorf("got %v", err)
	}
}
