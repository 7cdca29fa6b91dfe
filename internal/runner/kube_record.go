package runner

import (
	"fmt"
	"slices"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// What a kubernetes run's Meta says of the target, made from the API's
// observations (record.Kubernetes) alone: pure functions, table-tested.
// Exit times: Kubernetes states a container's finishedAt in whole seconds
// and the watch sees the termination after the kubelet reports it, so the
// exit lies between finishedAt and the later of finishedAt + 1 s and the
// watch's sight; kubeExitNs takes the earliest upper bound, and the
// report says the resolution (docs/kubernetes.md).

// kubeExitNs is the upper bound of a pod's container exit
// (record.KubePod.ExitUpperNs; 0: it did not end).
func kubeExitNs(p record.KubePod) int64 { return p.ExitUpperNs() }

// currentTemplateHash is the pod-template-hash of the pods the recorder
// saw ready and not deleted: the Deployment's template before the action.
func currentTemplateHash(obs record.Kubernetes) string {
	for _, p := range obs.Pods {
		if p.ReadyNs > 0 && p.DeletionSeenNs == 0 && p.TemplateHash != "" {
			return p.TemplateHash
		}
	}
	return ""
}

// kubeReplicas are the run's replicas: the pods of the template before the
// action, by name, each with its exit (for acted, the deleted pod, only
// when it ended) and its lifecycle lines.
func kubeReplicas(obs record.Kubernetes, hash string, events map[string][]record.Event, acted string) []record.Replica {
	var out []record.Replica
	pods := slices.Clone(obs.Pods)
	slices.SortFunc(pods, func(a, b record.KubePod) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	for _, p := range pods {
		if hash != "" && p.TemplateHash != hash {
			continue
		}
		rep := record.Replica{Name: p.Name, Events: events[p.Name], StopTimeoutS: p.GraceS}
		if t := kubeExitNs(p); t > 0 && p.ExitCode != nil {
			code := *p.ExitCode
			rep.Exited, rep.ExitCode, rep.ExitedNs, rep.OOMKilled = true, &code, t, p.Reason == "OOMKilled"
		}
		out = append(out, rep)
	}
	return out
}

// markKilled moves a termination's action to the acted-on pod's
// index among the replicas and marks the SIGKILL sent when the container
// ended 137 at or after the kubelet's schedule: the kubelet sends SIGKILL
// when the grace period runs out, and nothing earlier ends a container
// with 137 unless the app kills itself so.
func markKilled(a *record.Action, reps []record.Replica, acted string) {
	t := a.Termination()
	for i, r := range reps {
		if r.Name != acted {
			continue
		}
		a.Replica = i
		if r.Exited && *r.ExitCode == 137 && r.ExitedNs >= t.KillAtNs {
			t.KillSentNs = t.KillAtNs
		}
	}
}

// kubeRolloutRecord is a rollout's record as sent: the Deployment's
// update strategy made from action.rollout (kubeSettingsOf).
func kubeRolloutRecord(s scenarios.Spec, ns string) *record.Rollout {
	ro := s.Action.Rollout()
	r := &record.Rollout{Service: kubeTarget, EndpointMode: "clusterip", Network: ns,
		Parallelism: ro.Parallelism, Order: ro.Order, FailureAction: ro.FailureAction, MonitorMs: ms(ro.Monitor.D()),
		StopGracePeriodMs: ms(ro.StopGracePeriod.D()), StopSignal: ro.StopSignal, HealthCheck: ro.Healthcheck.Check, Image: ro.Image}
	if ro.Healthcheck.Check != scenarios.CheckNone {
		r.HealthIntervalMs, r.HealthRetries = ms(ro.Healthcheck.Interval.D()), ro.Healthcheck.Retries
	}
	return r
}

// kubeTasks are a rollout's pods as its tasks: old (the template before
// the action) or new, their signal (the deletion the kubelet acted on:
// the stop signal follows it, after a pre-stop hook), their end, their
// readiness, their unhealthy probes, and their address.
func kubeTasks(obs record.Kubernetes, hash string, port int, events map[string][]record.Event) []record.SwarmTask {
	var out []record.SwarmTask
	for i, p := range obs.Pods {
		t := record.SwarmTask{ID: p.Name, Slot: i + 1, Generation: record.GenerationNew, CreatedNs: p.CreatedNs,
			StartedNs: p.RunningNs, FinishedNs: kubeExitNs(p), SignalNs: p.DeletionSeenNs, HealthyNs: p.ReadyNs,
			ExitCode: p.ExitCode, Events: events[p.Name], State: kubeState(p), Message: p.Reason}
		if hash != "" && p.TemplateHash == hash {
			t.Generation = record.GenerationOld
		}
		if p.IP != "" {
			t.Upstream = fmt.Sprintf("%s:%d", p.IP, port)
		}
		if p.ExitCode != nil && *p.ExitCode == 137 && p.DeletionNs > 0 && p.GraceS != nil &&
			t.FinishedNs >= p.DeletionNs+int64(*p.GraceS)*1e9 {
			t.KillNs = p.DeletionNs + int64(*p.GraceS)*1e9 // the kubelet's schedule
		}
		for _, e := range obs.Events {
			if e.Kind == "Pod" && e.Name == p.Name && e.Reason == "Unhealthy" {
				if t.Unhealthy == 0 {
					t.UnhealthyNs = e.ObservedNs
				}
				t.Unhealthy++
			}
		}
		out = append(out, t)
	}
	return out
}

// kubeState words a pod's end as a task state.
func kubeState(p record.KubePod) string {
	switch {
	case p.ExitCode != nil && *p.ExitCode == 0:
		return "complete"
	case p.ExitCode != nil:
		return "failed"
	case p.DeletionSeenNs > 0:
		return "shutdown"
	case p.RunningNs > 0:
		return "running"
	}
	return "pending"
}
