package check

// The scenario `check --manifest` runs: the manifest's pod, as the kubelet
// would run and terminate it, behind a proxy beside a second pod, with the
// endpoint's propagation delay swept as variants.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Timing of a manifest check's runs: the deletion 2 s into the load, the
// load running on past the slowest propagation and the pre-stop sleep,
// then manifestTail more, so a failure at the endpoint's removal or at
// the stop signal falls inside it.
const (
	manifestAt   = 2 * time.Second
	manifestTail = 3 * time.Second
	// manifestHookBound bounds what the load covers of an exec or httpGet
	// hook, whose length the manifest does not say.
	manifestHookBound = 10 * time.Second
	// manifestMinPods and manifestMaxPods bound how many pods run behind
	// the proxy: the workload's replicas, at least one terminated beside
	// one that keeps serving, at most five (a larger Deployment's step is
	// the same with a smaller share of the traffic on the terminated pod).
	manifestMinPods = 2
	manifestMaxPods = 5
)

// manifestFile names the generated scenario in errors.
const manifestFile = "(shutdownlab check --manifest)"

// manifestOpts are the choices a manifest check's scenario is made from.
type manifestOpts struct {
	pod kube.Pod
	// image is the image run (the manifest's, or --image).
	image string
	// imageStopSignal is the image's STOPSIGNAL (SIGTERM when it sets
	// none): what the runtime sends when the manifest names no
	// lifecycle.stopSignal.
	imageStopSignal string
	port            int
	readyPath, path string
	runs            int
	// delays is the propagation sweep, ascending; stated the delay the
	// verdict judges (one of delays).
	delays []time.Duration
	stated time.Duration
	// preStop overrides the manifest's hook (the pre-stop search's
	// candidate sleep; nil: the manifest's).
	preStop *kube.Hook
	// sleeps, when set, are the pre-stop search's candidate sleeps: the
	// variant axis instead of the delays (then one delay).
	sleeps []time.Duration
}

// pods is how many pods run behind the proxy (manifestMinPods..
// manifestMaxPods of the workload's replicas).
func (o manifestOpts) pods() int {
	return min(max(o.pod.Replicas, manifestMinPods), manifestMaxPods)
}

// hook is the pre-stop hook the scenario runs.
func (o manifestOpts) hook() *kube.Hook {
	if o.preStop != nil {
		return o.preStop
	}
	return o.pod.PreStop
}

// stopSignal is the signal the kubelet sends after the hook.
func (o manifestOpts) stopSignal() string {
	if o.pod.StopSignal != "" {
		if s, ok := scenarios.SendableSignal(o.pod.StopSignal); ok {
			return s
		}
		return o.pod.StopSignal
	}
	return o.imageStopSignal
}

// loadLength is how long the clients send: past the deletion (after the
// new pod's availability when the deletion waits for it), the slowest
// propagation, the hook and a new pod's joining, by manifestTail.
func (o manifestOpts) loadLength() time.Duration {
	hook := time.Duration(0)
	if h := o.hook(); h != nil {
		hook = manifestHookBound
		if h.Kind == kube.HookSleep {
			hook = h.Sleep
		}
	}
	delay := slices.Max(o.delays)
	return manifestAt + newPodBound(o.pod) + max(delay, min(hook, o.pod.GracePeriod), newPodJoinAfterDeletion(o.pod, delay)) + manifestTail
}

// manifestScenario is the scenario (saved with the results as
// scenario.yaml).
func manifestScenario(o manifestOpts) (*scenarios.Scenario, error) {
	p := o.pod
	name, file := checkName("manifest-"+strings.ToLower(p.Kind)+"-"+p.Name), manifestFile
	if len(o.sleeps) > 0 {
		name, file = name+"-prestop-search", manifestFile+" pre-stop search"
	}
	desc := fmt.Sprintf("shutdownlab check --manifest: %s %s, container %s (image %s): %d pods behind Caddy, 20 keep-alive clients sending GET %s; at %s one pod is deleted and terminated as the kubelet would (%s, then %s, SIGKILL %s after the deletion); the proxy drops its endpoint after each propagation delay.",
		p.Kind, p.Name, p.Container, o.image, o.pods(), o.path, manifestAt, hookWords(o.hook()), o.stopSignal(), p.GracePeriod)
	if rollsNewPod(p) {
		desc += fmt.Sprintf(" A new pod replaces it (RollingUpdate, maxSurge %d, maxUnavailable %d) and joins the proxy once ready, after the same propagation delay.", p.Strategy.MaxSurge, p.Strategy.MaxUnavailable)
	}
	deregister := scenarios.Duration(o.delays[0])
	sp := scenarios.Spec{Name: name, Description: desc, Runs: o.runs, Topology: scenarios.TopologyCaddy, Replicas: o.pods(),
		Proxy:   scenarios.Proxy{HealthURI: "none", DeregisterAfter: &deregister},
		Target:  manifestTarget(o),
		Load:    checkLoad(20, scenarios.Duration(o.loadLength()), o.path),
		Action:  scenarios.Action{Kind: scenarios.ActionTerminate, At: scenarios.Duration(manifestAt)},
		Observe: scenarios.Observe{Window: scenarios.Duration(p.GracePeriod + 5*time.Second)},
	}
	t := scenarios.Terminate{Grace: scenarios.Duration(p.GracePeriod), StopSignal: o.stopSignal()}
	if h := o.hook(); h != nil {
		t.PreStop = preStopOf(*h)
	}
	if rollsNewPod(p) {
		t.NewPod = newPodOf(p)
	}
	sp.Action.SetBlock(&t)
	var axes []scenarios.Axis
	switch {
	case len(o.sleeps) > 0:
		axes = []scenarios.Axis{{Key: "action.terminate.pre_stop.sleep", Values: durStrings(o.sleeps)}}
	case len(o.delays) > 1:
		axes = []scenarios.Axis{{Key: "proxy.deregister_after", Values: durStrings(o.delays)}}
	}
	return scenarios.Generate(file, "Generated by `shutdownlab check --manifest "+p.File+"`.", sp, axes)
}

// manifestTarget is the target: the image with the manifest's command,
// args and literal env, and what it speaks.
func manifestTarget(o manifestOpts) scenarios.Target {
	t := scenarios.Target{Image: o.image, Command: o.pod.Command, Args: o.pod.Args}
	for _, e := range o.pod.Env {
		if t.Env == nil {
			t.Env = map[string]string{}
		}
		t.Env[e.Name] = e.Value
	}
	path, _, _ := strings.Cut(o.path, "?")
	t.Protocol = scenarios.Protocol{Port: o.port, ReadyPath: o.readyPath, Paths: []string{path}}
	return t
}

// preStopOf is a pre-stop hook as the scenario's pre_stop block.
func preStopOf(h kube.Hook) *scenarios.PreStop {
	switch h.Kind {
	case kube.HookExec:
		return &scenarios.PreStop{Exec: h.Command}
	case kube.HookHTTPGet:
		return &scenarios.PreStop{HTTPGet: &scenarios.HTTPGetHook{Path: h.Path, Port: h.Port}}
	}
	sleep := scenarios.Duration(h.Sleep)
	return &scenarios.PreStop{Sleep: &sleep}
}

// hookWords names a hook in the verdict and the description.
func hookWords(h *kube.Hook) string {
	switch {
	case h == nil:
		return "no preStop hook"
	case h.Kind == kube.HookExec:
		return "preStop exec " + quotedList(h.Command)
	case h.Kind == kube.HookHTTPGet:
		return fmt.Sprintf("preStop httpGet %s on port %d", h.Path, h.Port)
	}
	return "preStop sleep " + scenarios.Duration(h.Sleep).String()
}

// quotedList is ["a", "b"]: a list of double-quoted strings.
func quotedList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// durStrings are durations as a scenario writes them.
func durStrings(ds []time.Duration) []string {
	var out []string
	for _, d := range ds {
		out = append(out, dur(d))
	}
	return out
}
