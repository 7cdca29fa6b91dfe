package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/internal/kubeapi"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Platform kubernetes (scenario platform: kubernetes): the run's own
// namespace on a real cluster holds the target as a Deployment behind a
// ClusterIP Service and the load agent as a pod that dials the Service, so
// every request takes the cluster's path (kube-proxy, the CNI). The
// actions are the cluster's own: a rollout the Deployment controller
// plays (kube_act.go), one pod's deletion the kubelet carries out. What
// the run records of the cluster comes from its API (record.Kubernetes):
// pods, events, EndpointSlices, each with the time this host saw it.
// Nothing is created, changed or deleted outside the run's namespace.

// Bounds of a kubernetes run's own waits.
const (
	// kubeNamespaceBound bounds the namespace's deletion at teardown (its
	// pods get their grace period first).
	kubeNamespaceBound = 90 * time.Second
	// kubeWatchGrace is how long the watches may still deliver at the end.
	kubeWatchGrace = time.Second
	// kubeLogBound bounds a target pod's log stream.
	kubeLogBound = 30 * time.Minute
)

// kubeCluster is the part of *kubeapi.Client a kubernetes run uses, so the
// platform runs against an in-memory fake in unit tests. Each method's
// contract is the kubeapi method's of the same name.
type kubeCluster interface {
	Info() kubeapi.Info
	CreateNamespace(ctx context.Context, name string, labels map[string]string) error
	DeleteNamespace(ctx context.Context, name string, wait time.Duration) error
	CreateDeployment(ctx context.Context, ns string, d *appsv1.Deployment) error
	CreateService(ctx context.Context, ns string, s *corev1.Service) (string, error)
	CreatePod(ctx context.Context, ns string, p *corev1.Pod) error
	GetDeployment(ctx context.Context, ns, name string) (*appsv1.Deployment, error)
	WaitDeploymentAvailable(ctx context.Context, ns, name string, timeout time.Duration) error
	WaitPodExit(ctx context.Context, ns, name string, timeout time.Duration) (kubeapi.PodExit, error)
	FollowLogs(ctx context.Context, ns, pod, container string, w io.Writer) error
	DeletePod(ctx context.Context, ns, name string, grace *int64) (int64, error)
	RolloutRestart(ctx context.Context, ns, deployment string) (int64, error)
	SetImage(ctx context.Context, ns, deployment, container, image string) (int64, error)
	WaitRolloutComplete(ctx context.Context, ns, deployment string, timeout time.Duration) (int64, error)
	Watch(ctx context.Context, ns, podSelector, service string) (kubeRecorder, error)
}

// kubeRecorder is the run's observation of the cluster (*kubeapi.Recorder).
type kubeRecorder interface {
	Snapshot() record.Kubernetes
	Stop(grace time.Duration) record.Kubernetes
}

// kubePlatform is one run of platform kubernetes.
type kubePlatform struct {
	*run
	kc  kubeCluster
	ns  string // "" until the namespace was created
	rec *kubeRecorderHolder
	obs record.Kubernetes // the recorder's observations, once stopped
	// templateHash is the target's pod-template-hash before the action.
	templateHash string
	// logs follow the target pods' output (lifecycle lines, app logs).
	logs *podLogs
	// rollout is the rollout's record (action rollout).
	rollout *record.Rollout
	// acted is the deleted pod's name (action terminate).
	acted string
	// events are each target pod's lifecycle lines, by pod name.
	events map[string][]record.Event
	// container is the measured container's name (kubeTarget, or the
	// manifest's).
	container string
	// manifest is the scenario's manifest workload (nil without one).
	manifest *kube.Workload
}

// kubeRecorderHolder keeps the recorder for teardown whatever happened.
type kubeRecorderHolder struct {
	mu sync.Mutex
	r  kubeRecorder
}

// Registers the Kubernetes platform with the runner (registry.go).
func init() { platforms.register(scenarios.PlatformKubernetes, newKubePlatform) }

// newKubePlatform is the kubernetes platform of run x: the runner's
// cluster, connected on first use.
func newKubePlatform(x *run) (platform, error) {
	kc, err := kubeOf(x.r)
	if err != nil {
		return nil, err
	}
	k := &kubePlatform{run: x, kc: kc, rec: &kubeRecorderHolder{}, logs: newPodLogs(), container: kubeTarget}
	if b := x.spec.Kubernetes(); b != nil && b.Manifest != "" {
		w, err := readManifestWorkload(b)
		if err != nil {
			return nil, err
		}
		k.manifest, k.container = &w, w.Template.Spec.Containers[w.Container].Name
	}
	return k, nil
}

func (k *kubePlatform) setUpParts() string {
	return "namespace, images, deployment, service, readiness, agent pod"
}

// cleanupSlack lets the namespace's pods drain within their grace period.
func (k *kubePlatform) cleanupSlack() time.Duration { return kubeNamespaceBound }

// agent is the load agent's pod.
func (k *kubePlatform) agent() agentProc {
	if k.ns == "" {
		return nil
	}
	return kubeAgentProc{kc: k.kc, ns: k.ns}
}

// startAll creates the namespace, delivers the images, creates the target
// Deployment and Service, waits until every pod is available, starts the
// watches and the agent pod.
func (k *kubePlatform) startAll(ctx context.Context) error {
	x := k.run
	ns := kubeName(x.name)
	labels := map[string]string{"shutdownlab.run": ns, "shutdownlab.scenario": x.spec.Name}
	if x.r.dock != nil {
		labels = x.r.dock.Labels(labels) // the owner labels `shutdownlab clean` reads
	}
	for key, v := range labels {
		labels[key] = kubeLabelValue(v)
	}
	x.obj.labels = labels
	if err := k.kc.CreateNamespace(ctx, ns, labels); err != nil {
		return err
	}
	k.ns, x.obj.network = ns, ns
	target, agentImage, err := k.images(ctx)
	if err != nil {
		return err
	}
	w, err := k.kc.Watch(context.WithoutCancel(ctx), ns, kubeAppLabel+"=shutdownlab-target", kubeTarget)
	if err != nil {
		return err
	}
	k.rec.set(w)
	d, err := k.deployment(target)
	if err != nil {
		return err
	}
	if err := k.kc.CreateDeployment(ctx, ns, d); err != nil {
		return err
	}
	if err := k.checkStopSignal(ctx, d); err != nil {
		return err
	}
	ip, err := k.kc.CreateService(ctx, ns, kubeService(ns, k.port()))
	if err != nil {
		return err
	}
	k.logs.follow(ctx, k.kc, ns, k.container, x.dir, w) // the target pods' output, as each one starts
	if err := k.kc.WaitDeploymentAvailable(ctx, ns, kubeTarget, x.readyTimeout()); err != nil {
		return invalidf("target deployment: %v", err)
	}
	k.templateHash = currentTemplateHash(w.Snapshot())
	args := x.load.args(x)
	return k.kc.CreatePod(ctx, ns, kubeAgentPod(ns, agentImage, args, ip, x.limits().MemoryBytes()))
}

// images delivers the target's and the agent's images: with --registry,
// each is tagged and pushed there and the pods name the registry's
// reference; without, the local reference is used as it is (an image the
// nodes already have, or can pull: imagePullPolicy IfNotPresent).
func (k *kubePlatform) images(ctx context.Context) (target, agent string, err error) {
	x := k.run
	if k.manifest != nil {
		target = x.spec.Kubernetes().Image
		if target == "" {
			target = k.manifest.Template.Spec.Containers[k.manifest.Container].Image
		}
	} else if im := x.spec.Target.Image; im != "" {
		// A user's image: delivered when local, else as named (the nodes
		// have it or pull it).
		target, x.target.ref, x.target.runtime = im, im, "image "+im
	} else if x.target.ref, x.target.runtime, err = x.r.imgs.Target(ctx, imageTarget(x.spec.Target)); err != nil {
		return "", "", err
	} else {
		target = x.target.ref
	}
	if agent, err = x.load.image(ctx, x.r.imgs); err != nil {
		return "", "", err
	}
	if target, err = k.deliver(ctx, target); err != nil {
		return "", "", err
	}
	agent, err = k.deliver(ctx, agent)
	return target, agent, err
}

// deliver pushes a local image to the registry (--registry) and returns
// the reference the pods use; "" stays "" (the manifest's own image).
func (k *kubePlatform) deliver(ctx context.Context, ref string) (string, error) {
	reg := k.r.opts.Registry
	if ref == "" || reg == "" {
		return ref, nil
	}
	d := k.r.dock
	if d == nil {
		return "", errors.New("--registry needs a Docker engine to push from")
	}
	if ok, err := d.ImageExists(ctx, ref); err != nil || !ok {
		return ref, err // not a local image: the cluster pulls it as named
	}
	remote := docker.RegistryRef(reg, ref)
	k.r.opts.Progress.Logf("pushing %s to %s", ref, remote)
	return remote, d.PushImage(ctx, ref, remote)
}

// deployment is the target's Deployment: the scenario's, or the
// manifest's (kube_manifest.go).
func (k *kubePlatform) deployment(image string) (*appsv1.Deployment, error) {
	x := k.run
	if k.manifest != nil {
		return manifestDeployment(k.ns, *k.manifest, image, x.spec.Target.Env, x.spec.Kubernetes().PreStopSleep), nil
	}
	t := x.spec.Target
	env := x.targetEnv(0)
	for i, kv := range env {
		if len(kv) > 9 && kv[:9] == "INSTANCE=" {
			env[i] = fmt.Sprintf("INSTANCE=$(POD_IP):%d", x.port())
		}
	}
	return kubeDeployment(k.ns, image, x.spec.Replicas, env, programEntrypoint(t), programArgs(t), x.port(), kubeSettingsOf(x.spec, x.port())), nil
}

// checkStopSignal refuses a run whose stop signal the cluster dropped: an
// API server without the ContainerStopSignals feature (alpha in 1.33 and
// 1.34) strips lifecycle.stopSignal, and the pods would get the image's
// own STOPSIGNAL, not the one the scenario measures.
func (k *kubePlatform) checkStopSignal(ctx context.Context, sent *appsv1.Deployment) error {
	want := containerStopSignal(sent)
	if want == "" {
		return nil
	}
	got, err := k.kc.GetDeployment(ctx, k.ns, sent.Name)
	if err != nil {
		return err
	}
	if containerStopSignal(got) != want {
		return invalidf("the cluster dropped lifecycle.stopSignal %s from the Deployment: its API server lacks the ContainerStopSignals feature gate (alpha in Kubernetes 1.33 and 1.34); the pods would stop with the image's STOPSIGNAL instead", want)
	}
	return nil
}

// containerStopSignal is the first container's lifecycle.stopSignal ("").
func containerStopSignal(d *appsv1.Deployment) string {
	cs := d.Spec.Template.Spec.Containers
	if len(cs) == 0 || cs[0].Lifecycle == nil || cs[0].Lifecycle.StopSignal == nil {
		return ""
	}
	return string(*cs[0].Lifecycle.StopSignal)
}

// afterLoad has nothing to end: the watches run until collect.
func (k *kubePlatform) afterLoad(_ context.Context, err error) error { return err }

// teardown deletes the run's namespace (everything the run created is in
// it) and waits until it is gone; the recorder and the log streams stop
// first.
func (k *kubePlatform) teardown(ctx context.Context) error {
	k.stopRecorder()
	k.logs.stop()
	if k.ns == "" {
		return nil
	}
	return k.kc.DeleteNamespace(ctx, k.ns, kubeNamespaceBound)
}

// stopRecorder stops the watches once and keeps what they saw.
func (k *kubePlatform) stopRecorder() {
	if r := k.rec.take(); r != nil {
		k.obs = r.Stop(kubeWatchGrace)
	}
}

func (h *kubeRecorderHolder) set(r kubeRecorder) {
	h.mu.Lock()
	h.r = r
	h.mu.Unlock()
}

// snapshot is the recorder's observations so far (none once stopped).
func (h *kubeRecorderHolder) snapshot() record.Kubernetes {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.r == nil {
		return record.Kubernetes{}
	}
	return h.r.Snapshot()
}

// take returns the recorder once (nil afterwards).
func (h *kubeRecorderHolder) take() kubeRecorder {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.r
	h.r = nil
	return r
}
