// Package kubeapi is shutdownlab's one layer over a Kubernetes API server,
// on k8s.io/client-go: it connects through a kubeconfig (read, never
// written), creates and deletes the run's namespace and the objects in it,
// waits for them — every wait bounded by a timeout and the caller's
// context, and a pod that cannot start ends a wait at once with a
// [PodStartError] — follows a container's log, acts on a Deployment the
// way kubectl does (delete a pod, rollout restart, set image) and records
// what the cluster did meanwhile ([Recorder]: pods, events, EndpointSlice
// changes) into a record.Kubernetes, with this host's arrival time of each
// observation beside the server's own timestamps.
//
// It knows nothing of experiments: labels, names and specs come from the
// caller. The only namespace it creates, changes or deletes is the one the
// caller names as the run's; every object it creates goes into the
// namespace the call names, and an object that says another namespace is
// refused.
//
// # Watches
//
// Every wait and the Recorder list first, then watch from the list's
// resourceVersion (with bookmarks), so nothing between the list and the
// watch is missed. A watch the server closes is re-established from the
// last resourceVersion seen (a few consecutive failures at most, with a
// short backoff); a resourceVersion the server no longer has (410 Gone)
// makes it list again, and the Recorder says in WatchError that the
// changes in between were seen only as the new list's state. Selectors are
// applied again on this side, so a watch that ignores them (the fake
// clientset's) gives the same observations.
package kubeapi
