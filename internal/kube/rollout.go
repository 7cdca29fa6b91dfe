package kube

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ResolveFenceposts turns a rolling update's maxSurge and maxUnavailable
// (a count or a percentage of replicas; nil takes the Deployment default,
// 25%) into pods, as the Deployment controller does
// (pkg/controller/deployment/util.ResolveFenceposts): a surge percentage
// rounds up, an unavailable one down, and when both come to zero
// maxUnavailable becomes 1, so that a rollout can always progress.
func ResolveFenceposts(maxSurge, maxUnavailable *intstr.IntOrString, replicas int) (surge, unavailable int, err error) {
	s := intstr.ValueOrDefault(maxSurge, intstr.FromString(DefaultSurge))
	u := intstr.ValueOrDefault(maxUnavailable, intstr.FromString(DefaultUnavailable))
	if surge, err = intstr.GetScaledValueFromIntOrPercent(s, replicas, true); err != nil {
		return 0, 0, fmt.Errorf("maxSurge %s: %w", s.String(), err)
	}
	if unavailable, err = intstr.GetScaledValueFromIntOrPercent(u, replicas, false); err != nil {
		return 0, 0, fmt.Errorf("maxUnavailable %s: %w", u.String(), err)
	}
	if surge < 0 || unavailable < 0 {
		return 0, 0, fmt.Errorf("maxSurge %s, maxUnavailable %s: negative", s.String(), u.String())
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable, nil
}

// deploymentStrategy sets a Deployment's replicas, minReadySeconds and
// update strategy (default RollingUpdate, 25% / 25%).
func deploymentStrategy(p *Pod, d *appsv1.Deployment) error {
	if p.Replicas = replicas(d.Spec.Replicas); p.Replicas < 0 {
		return fmt.Errorf("spec.replicas: %d is negative", p.Replicas)
	}
	p.MinReady = time.Duration(d.Spec.MinReadySeconds) * time.Second
	st := d.Spec.Strategy
	switch st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		p.Strategy = Strategy{Kind: string(st.Type), MaxUnavailable: p.Replicas}
		return nil
	case "", appsv1.RollingUpdateDeploymentStrategyType:
	default:
		return fmt.Errorf("spec.strategy.type: %q is not RollingUpdate or Recreate", st.Type)
	}
	var ms, mu *intstr.IntOrString
	if r := st.RollingUpdate; r != nil {
		ms, mu = r.MaxSurge, r.MaxUnavailable
	}
	s, u, err := ResolveFenceposts(ms, mu, p.Replicas)
	if err != nil {
		return fmt.Errorf("spec.strategy.rollingUpdate: %w", err)
	}
	p.Strategy = Strategy{Kind: string(appsv1.RollingUpdateDeploymentStrategyType), MaxSurge: s, MaxUnavailable: u}
	return nil
}

// statefulSetStrategy sets a StatefulSet's replicas, minReadySeconds and
// update strategy: a rolling update replaces pods without surge, at most
// maxUnavailable at a time (default 1), highest ordinal first.
func statefulSetStrategy(p *Pod, s *appsv1.StatefulSet) error {
	if p.Replicas = replicas(s.Spec.Replicas); p.Replicas < 0 {
		return fmt.Errorf("spec.replicas: %d is negative", p.Replicas)
	}
	p.MinReady = time.Duration(s.Spec.MinReadySeconds) * time.Second
	st := s.Spec.UpdateStrategy
	switch st.Type {
	case appsv1.OnDeleteStatefulSetStrategyType:
		p.Strategy = Strategy{Kind: string(st.Type)}
		return nil
	case "", appsv1.RollingUpdateStatefulSetStrategyType:
	default:
		return fmt.Errorf("spec.updateStrategy.type: %q is not RollingUpdate or OnDelete", st.Type)
	}
	unavailable := 1
	if r := st.RollingUpdate; r != nil {
		if r.MaxUnavailable != nil {
			u, err := intstr.GetScaledValueFromIntOrPercent(r.MaxUnavailable, p.Replicas, false)
			if err != nil || u < 0 {
				return fmt.Errorf("spec.updateStrategy.rollingUpdate.maxUnavailable: %s: not a count or percentage", r.MaxUnavailable.String())
			}
			unavailable = max(u, 1)
		}
		if r.Partition != nil && *r.Partition > 0 {
			p.Unsupported = append(p.Unsupported, fmt.Sprintf("spec.updateStrategy.rollingUpdate.partition: %d: not emulated, every pod is rolled", *r.Partition))
		}
	}
	if s.Spec.PodManagementPolicy == appsv1.ParallelPodManagement {
		p.Unsupported = append(p.Unsupported, "spec.podManagementPolicy: Parallel: not emulated, pods are rolled in order")
	}
	p.Strategy = Strategy{Kind: string(appsv1.RollingUpdateStatefulSetStrategyType), MaxUnavailable: unavailable}
	return nil
}

// replicas is spec.replicas, 1 when unset.
func replicas(r *int32) int {
	if r == nil {
		return 1
	}
	return int(*r)
}
