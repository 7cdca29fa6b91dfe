package runner

import (
	"fmt"
	"maps"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// The target of platform kubernetes from a user's manifest
// (kubernetes.manifest): the workload's pod template as written, run as
// the run's Deployment in the run's namespace. The only changes are the
// ones that make it the run's and nothing else's: its name, its
// namespace, the run's labels added to its pods (its own kept) for the
// Deployment and the Service to select them, and, when given, the image of
// the measured container (kubernetes.image), target.env entries (which
// replace the manifest's entry of the same name, as check --manifest's
// --env does) and the pre-stop search's sleep (kubernetes.pre_stop_sleep).

// readManifestWorkload reads the scenario's manifest workload.
func readManifestWorkload(b *scenarios.Kubernetes) (kube.Workload, error) {
	data, err := os.ReadFile(b.Manifest)
	if err != nil {
		return kube.Workload{}, fmt.Errorf("kubernetes.manifest: %w", err)
	}
	return kube.Template(b.Manifest, data, kube.Options{Workload: b.Workload, Container: b.Container})
}

// manifestDeployment is workload w as the run's Deployment, its measured
// container running image ("": as written) with env over its own.
func manifestDeployment(run string, w kube.Workload, image string, env map[string]string, preStopSleep *scenarios.Duration) *appsv1.Deployment {
	labels := kubeTargetLabels(run)
	tpl := *w.Template.DeepCopy()
	tpl.Labels = maps.Clone(tpl.Labels)
	if tpl.Labels == nil {
		tpl.Labels = map[string]string{}
	}
	maps.Copy(tpl.Labels, labels)
	tpl.Namespace, tpl.Name = "", ""
	c := &tpl.Spec.Containers[w.Container]
	if image != "" {
		c.Image = image
	}
	for _, k := range sortedKeys(env) {
		setEnv(c, k, env[k])
	}
	if preStopSleep != nil {
		if c.Lifecycle == nil {
			c.Lifecycle = &corev1.Lifecycle{}
		}
		c.Lifecycle.PreStop = &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: int64(preStopSleep.D().Seconds())}}
	}
	n := w.Replicas
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: kubeTarget, Labels: labels},
		Spec: appsv1.DeploymentSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: w.Strategy, MinReadySeconds: w.MinReady, Template: tpl},
	}
}

// setEnv sets name to value in c's env, replacing an entry of that name.
func setEnv(c *corev1.Container, name, value string) {
	for i := range c.Env {
		if c.Env[i].Name == name {
			c.Env[i] = corev1.EnvVar{Name: name, Value: value}
			return
		}
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: name, Value: value})
}
