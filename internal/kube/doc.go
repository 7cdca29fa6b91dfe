// Package kube reads a Kubernetes workload manifest (a Deployment, a
// StatefulSet or a bare Pod) with the ecosystem's own types (k8s.io/api,
// sigs.k8s.io/yaml) into the Pod shutdownlab emulates on a Docker engine,
// and holds, as pure functions with their sources cited, the rules of the
// kubelet (a pod's termination: pre-stop hook, stop signal, grace period,
// SIGKILL) and of the Deployment controller (maxSurge, maxUnavailable)
// that the emulation follows. It starts nothing and reads no cluster.
package kube
