package runner

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// act waits for action.at and does what the cluster would: a rollout the
// Deployment controller plays (restart, or a new image), or one pod's
// deletion the kubelet carries out. The run records only what the API
// showed; the platform sends no signal itself.
func (k *kubePlatform) act(ctx context.Context, loadStart time.Time) error {
	a := k.spec.Action
	switch a.Kind {
	case scenarios.ActionNone:
		return nil
	case scenarios.ActionRollout:
		k.rollout = kubeRolloutRecord(k.spec, k.ns)
		k.rollout.AfterMs = ms(a.At.D())
	}
	if err := sleepUntil(ctx, loadStart.Add(a.At.D())); err != nil {
		return err
	}
	switch a.Kind {
	case scenarios.ActionRollout:
		return k.roll(ctx)
	case scenarios.ActionTerminate:
		return k.deleteOne(ctx)
	}
	return fmt.Errorf("action kind %q: platform kubernetes has no entry for it", a.Kind)
}

// roll starts the rollout (kubectl rollout restart, or set image to
// action.rollout.image) and waits, at most action.rollout.timeout, until
// the controller completed it. A rollout that does not complete is an
// observation; an API that refuses it makes the run invalid.
func (k *kubePlatform) roll(ctx context.Context) error {
	ro, rec := k.spec.Action.Rollout(), k.rollout
	var sent int64
	var err error
	if ro.Image != "" {
		img, derr := k.deliver(ctx, ro.Image)
		if derr != nil {
			return derr
		}
		rec.Image = img
		sent, err = k.kc.SetImage(ctx, k.ns, kubeTarget, k.container, img)
	} else {
		sent, err = k.kc.RolloutRestart(ctx, k.ns, kubeTarget)
	}
	rec.SentNs, rec.ReturnedNs = sent, time.Now().UnixNano()
	if err != nil {
		rec.Error = err.Error()
		return fmt.Errorf("action rollout: %w", err)
	}
	done, err := k.kc.WaitRolloutComplete(ctx, k.ns, kubeTarget, ro.Timeout.D())
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		rec.UpdateState, rec.UpdateMessage = "incomplete", err.Error()
		k.r.opts.Progress.Logf("rollout did not complete within %s: %v", ro.Timeout, err)
	default:
		rec.Converged, rec.ConvergedNs, rec.UpdateState = true, done, "complete"
	}
	return nil
}

// deleteOne deletes the action's pod (its index among the ready pods, by
// name) with action.terminate.grace_period and watches it, for the observation
// window, until its container ended. The stop signal is the kubelet's,
// after the pre-stop hook: this host cannot see it, so the action's
// SentNs is the deletion plus a sleep hook's length, and its delivery is
// bounded only by what the pod itself logs (the built-in target's signal
// line) or its exit.
func (k *kubePlatform) deleteOne(ctx context.Context) error {
	a := k.spec.Action
	t := a.Terminate()
	pods := readyPods(k.rec.snapshot())
	if a.Replica >= len(pods) {
		return invalidf("action.replica %d: only %d pods of the target were ready at the action", a.Replica, len(pods))
	}
	pod := pods[a.Replica]
	grace := int64(t.Grace.D().Seconds())
	rec := &record.Action{Kind: string(a.Kind), Signal: t.StopSignal, Replica: a.Replica, AfterMs: ms(a.At.D())}
	k.meta.Action = rec
	k.acted = pod
	sent, err := k.kc.DeletePod(ctx, k.ns, pod, &grace)
	term := &record.Termination{DeletedNs: sent, GraceS: int(grace), Signal: t.StopSignal, KillAtNs: sent + grace*1e9}
	rec.SetPart(term)
	rec.SentNs = sent
	if p := t.PreStop; p != nil && p.Sleep != nil {
		rec.SentNs = sent + p.Sleep.D().Nanoseconds()
	}
	if err != nil {
		rec.Error = err.Error()
		return fmt.Errorf("action terminate: %w", err)
	}
	window := k.spec.Observe.Window.D() - time.Since(time.Unix(0, sent))
	_, err = k.kc.WaitPodExit(ctx, k.ns, pod, max(window, 0))
	return err
}

// readyPods are the names of the target pods seen ready and not being
// deleted, sorted.
func readyPods(obs record.Kubernetes) []string {
	var out []string
	for _, p := range obs.Pods {
		if p.ReadyNs > 0 && p.NotReadyNs == 0 && p.DeletionSeenNs == 0 && p.TerminatedNs == 0 {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return out
}

// collect reads back the load's records, stops the watches and the pods'
// log streams, and reads each pod's lifecycle lines.
func (k *kubePlatform) collect(ctx context.Context) error {
	x := k.run
	x.load.collect(&x.meta, x.stream)
	k.stopRecorder()
	k.logs.stop()
	k.events = map[string][]record.Event{}
	for _, pod := range k.logs.pods() {
		b, err := os.ReadFile(k.logs.file(pod))
		if err == nil {
			k.events[pod] = parseLifecycle(b)
		}
	}
	return nil
}

// finish records the cluster's observations, the target's pods as the
// run's replicas, and the rollout or termination.
func (k *kubePlatform) finish(meta *record.Meta) {
	if k.ns == "" {
		return
	}
	obs := k.obs
	info := k.kc.Info()
	obs.Context, obs.Server, obs.ServerVersion, obs.Namespace = info.Context, info.Server, info.ServerVersion, k.ns
	obs.Deployment, obs.Service = kubeTarget, kubeTarget
	meta.SetPart(&obs)
	meta.Replicas = kubeReplicas(obs, k.templateHash, k.events, k.acted)
	if a := meta.Action; a != nil && a.Termination() != nil {
		markKilled(a, meta.Replicas, k.acted)
	}
	if k.rollout != nil {
		k.rollout.Tasks = kubeTasks(obs, k.templateHash, k.port(), k.events)
		meta.SetPart(k.rollout)
	}
}
