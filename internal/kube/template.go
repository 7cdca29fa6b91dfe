package kube

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Workload is a manifest's workload as a Deployment on a real cluster
// runs it (check --manifest --context): its pod template as written, its
// replica count, its update strategy (a StatefulSet's or a Pod's: the
// Deployment's default) and minReadySeconds, and which container is the
// one measured.
type Workload struct {
	// Kind and Name are the manifest's ("Deployment", "web").
	Kind, Name string
	Template   corev1.PodTemplateSpec
	Replicas   int32
	Strategy   appsv1.DeploymentStrategy
	MinReady   int32
	// Container is the index of the measured container in
	// Template.Spec.Containers.
	Container int
}

// Template reads the workload of file's manifest data as written (no
// field is refused for being beyond the emulation: the cluster runs it).
// opts.Workload and opts.Container choose as for Read.
func Template(file string, data []byte, opts Options) (Workload, error) {
	if len(data) > MaxManifestBytes {
		return Workload{}, fmt.Errorf("%s: more than the %s a manifest may have", file, MaxManifestSize)
	}
	ws, _, err := workloads(file, data)
	if err != nil {
		return Workload{}, err
	}
	w, err := pick(file, ws, opts.Workload)
	if err != nil {
		return Workload{}, err
	}
	i, err := chooseContainer(w.spec.Containers, opts.Container, w.base)
	if err != nil {
		return Workload{}, fmt.Errorf("%s: %s %s: %w", file, w.kind, w.name, err)
	}
	return Workload{Kind: w.kind, Name: w.name, Template: *w.template.DeepCopy(), Replicas: w.replicas,
		Strategy: w.strategy, MinReady: w.minReady, Container: i}, nil
}
