package check

// The rolling update a manifest check emulates around the pod's
// termination: a Deployment's RollingUpdate starts a new pod in the old
// one's place, which joins the proxy once its readiness probe passes (plus
// the propagation delay); with maxUnavailable 0 the old pod is deleted
// only once the new one is available.

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// newPodStartBound is what a manifest check allows a new pod's app to
// start in, beyond what its readiness probe's settings say, when sizing
// the load: a pod available later makes the run invalid, saying so.
const newPodStartBound = 10 * time.Second

// rollsNewPod tells whether the workload's update starts a new pod the
// check emulates: a Deployment's RollingUpdate. A Recreate deletes every
// pod first, a StatefulSet recreates a pod only once the old one is gone,
// a bare Pod and OnDelete have no rollout: their check emulates the
// termination alone (rolloutWhy says so).
func rollsNewPod(p kube.Pod) bool {
	return p.Kind == "Deployment" && p.Strategy.Kind == "RollingUpdate"
}

// rolloutWhy says why a workload's check has no new pod ("" when it has).
func rolloutWhy(p kube.Pod) string {
	switch {
	case rollsNewPod(p):
		return ""
	case p.Strategy.Kind == "":
		return "a bare Pod has no rollout: the termination alone is emulated"
	}
	return fmt.Sprintf("%s %s: its new pods are not emulated (only a Deployment's RollingUpdate is); the termination alone is", p.Kind, p.Strategy.Kind)
}

// newPodBeforeDeletion: with maxUnavailable 0 the controller deletes an
// old pod only once a new one is available (maxSurge is then at least 1).
func newPodBeforeDeletion(p kube.Pod) bool { return p.Strategy.MaxUnavailable == 0 }

// newPodContainerStart is what a manifest check allows a new pod without
// a readiness probe to start its container in (docker create and start on
// the run's network: 1.2 to 3.2 s measured on a 2-core machine, the longer
// under load), when sizing the load; with a probe, newPodStartBound
// covers it. A pod that joins the proxy too late for the load to see it
// makes the run invalid (the runner's newPodObserved), never safe.
const newPodContainerStart = 5 * time.Second

// newPodReadyBound bounds how long after its start a new pod takes to be
// ready: without a readiness probe its container's start; with one, the
// probe's schedule for its success threshold, one period more and
// newPodStartBound.
func newPodReadyBound(p kube.Pod) time.Duration {
	r := p.Readiness
	if r == nil {
		return newPodContainerStart
	}
	return r.InitialDelay + time.Duration(r.SuccessThreshold+1)*r.Period + newPodStartBound
}

// newPodBound bounds how long after the action a new pod that must be
// available before the deletion takes to be (0 when the deletion does not
// wait): its readiness bound and minReadySeconds.
func newPodBound(p kube.Pod) time.Duration {
	if !rollsNewPod(p) || !newPodBeforeDeletion(p) {
		return 0
	}
	return newPodReadyBound(p) + p.MinReady
}

// newPodJoinAfterDeletion bounds how long after the deletion a new pod
// that starts with it (maxUnavailable above 0) joins the proxy: its
// readiness bound and the propagation delay. 0 when there is no such pod:
// one available before the deletion joins before the deletion's own
// propagation delay ends.
func newPodJoinAfterDeletion(p kube.Pod, delay time.Duration) time.Duration {
	if !rollsNewPod(p) || newPodBeforeDeletion(p) {
		return 0
	}
	return newPodReadyBound(p) + delay
}

// newPodOf is the terminate block's new pod for the workload.
func newPodOf(p kube.Pod) *scenarios.NewPod {
	np := &scenarios.NewPod{BeforeDeletion: newPodBeforeDeletion(p), MinReady: scenarios.Duration(p.MinReady),
		Timeout: scenarios.Duration(newPodBound(p) + scenarios.DefaultNewPodTimeout)}
	if r := p.Readiness; r != nil {
		np.Readiness = &scenarios.Readiness{Path: r.Path, Port: r.Port, InitialDelay: scenarios.Duration(r.InitialDelay),
			Period: scenarios.Duration(r.Period), Timeout: scenarios.Duration(r.Timeout), SuccessThreshold: r.SuccessThreshold}
	}
	return np
}

// rolloutWords says how the scenario's new pod joined, for the verdict.
func rolloutWords(np *scenarios.NewPod) string {
	order := "it starts at the deletion (maxUnavailable >= 1)"
	if np.BeforeDeletion {
		order = "the old pod is deleted once it is available (maxUnavailable 0)"
	}
	ready := "without a readinessProbe it is ready once its container started"
	if np.Readiness != nil {
		ready = "it is ready once its readinessProbe, " + readinessWords(np.Readiness) + ", passed"
	}
	return fmt.Sprintf("a new pod replaces it, as the Deployment's RollingUpdate does: %s; %s, and joins the proxy after the propagation delay", order, ready)
}

// readinessWords names a readiness probe ("" for none).
func readinessWords(r *scenarios.Readiness) string {
	if r == nil {
		return ""
	}
	port := "the container's port"
	if r.Port != 0 {
		port = "port " + strconv.Itoa(r.Port)
	}
	return fmt.Sprintf("GET %s on %s every %s after %s, %d in a row", r.Path, port, r.Period, r.InitialDelay, r.SuccessThreshold)
}
