package kubeapi

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/shutdownlab/shutdownlab/record"
)

// podTemplateHashLabel is the label the Deployment controller gives the
// pods of one template (one ReplicaSet).
const podTemplateHashLabel = "pod-template-hash"

// podTrack is the Recorder's state of one pod: its record and what
// identifies the termination recorded in it.
type podTrack struct {
	kp     record.KubePod
	termID string // container id and finishedAt of the recorded termination
}

// observe folds one observation of p, arrived at nowNs, into t: "first
// seen" fields are set once, the rest follow the latest state. gone says
// the watch saw p removed. Pure.
func (t *podTrack) observe(p *corev1.Pod, nowNs int64, gone bool) {
	kp := &t.kp
	kp.Name, kp.UID = p.Name, string(p.UID)
	if p.Status.PodIP != "" {
		kp.IP = p.Status.PodIP
	}
	if p.Spec.NodeName != "" {
		kp.Node = p.Spec.NodeName
	}
	if h := p.Labels[podTemplateHashLabel]; h != "" {
		kp.TemplateHash = h
	}
	setOnce(&kp.FirstSeenNs, nowNs)
	if !p.CreationTimestamp.IsZero() {
		setOnce(&kp.CreatedNs, p.CreationTimestamp.UnixNano())
	}
	if cs := mainContainer(p); cs != nil {
		if r := cs.State.Running; r != nil {
			setOnce(&kp.RunningNs, nowNs)
			if !r.StartedAt.IsZero() {
				setOnce(&kp.StartedAtNs, r.StartedAt.UnixNano())
			}
		}
		term := cs.State.Terminated
		if term == nil {
			term = cs.LastTerminationState.Terminated // it restarted since
		}
		if term != nil {
			if !term.StartedAt.IsZero() {
				setOnce(&kp.StartedAtNs, term.StartedAt.UnixNano()) // never seen running
			}
			id := term.ContainerID + "@" + term.FinishedAt.UTC().String()
			if id != t.termID {
				// A termination not recorded yet (the first, or one after
				// a restart): the record follows the latest.
				t.termID = id
				kp.TerminatedNs = nowNs
				kp.FinishedAtNs = 0
				if !term.FinishedAt.IsZero() {
					kp.FinishedAtNs = term.FinishedAt.UnixNano()
				}
				code := int(term.ExitCode)
				kp.ExitCode = &code
				kp.Reason = term.Reason
			}
		}
		kp.Restarts = int(cs.RestartCount)
	}
	for _, c := range p.Status.Conditions {
		if c.Type != corev1.PodReady {
			continue
		}
		switch {
		case c.Status == corev1.ConditionTrue:
			setOnce(&kp.ReadyNs, nowNs)
		case c.Status == corev1.ConditionFalse && kp.ReadyNs != 0:
			setOnce(&kp.NotReadyNs, nowNs)
		}
	}
	if p.DeletionTimestamp != nil && kp.DeletionSeenNs == 0 {
		kp.DeletionSeenNs = nowNs
		kp.DeletionNs = p.DeletionTimestamp.UnixNano()
		if g := p.DeletionGracePeriodSeconds; g != nil {
			s := int(*g)
			kp.GraceS = &s
		}
	}
	if gone {
		setOnce(&kp.GoneNs, nowNs)
	}
}

// setOnce sets *f to v unless it is set already.
func setOnce(f *int64, v int64) {
	if *f == 0 {
		*f = v
	}
}
