package check

import (
	"fmt"
	"time"
)

// keepAliveBound is the latest a pod's drain can end on a cluster, from
// the runs' own measurements: its preStop hook's time plus the slowest
// request it served (0 when no run measured both). The emulation's proxy
// stops sending to the pod for every request at the deregistration, but
// kube-proxy's rules apply to new connections only: a client's kept-alive
// connection keeps reaching the pod until the app closes it, at the stop
// signal at the earliest, so a request can start on it just before the
// signal (measured on a cluster: docs/kubernetes.md, "Calibration").
func keepAliveBound(f manifestFacts) time.Duration {
	var worst float64
	for _, d := range f.Delays {
		for _, r := range d.Runs {
			if r.Core.MaxMs != nil {
				worst = max(worst, hookMs(r)+*r.Core.MaxMs)
			}
		}
	}
	return time.Duration(worst * float64(time.Millisecond))
}

// hookMs is a run's preStop hook time (0 without a hook).
func hookMs(r podRun) float64 {
	if r.PodHookMs == nil {
		return 0
	}
	return *r.PodHookMs
}

// keepAliveWhy says where the keep-alive bound comes from.
func keepAliveWhy(f manifestFacts) string {
	return fmt.Sprintf("kube-proxy leaves a kept-alive connection on the pod until the app closes it, so a request can start on it just before %s: the hook and the slowest request, %.1f s", f.StopSignal, float64(keepAliveBound(f)/time.Millisecond)/1000)
}

// keepAliveWords is the UNSAFE-on-a-cluster reason: the grace period ends
// before the keep-alive bound.
func keepAliveWords(f manifestFacts) string {
	return fmt.Sprintf("terminationGracePeriodSeconds %d ends before the drain can on a cluster (%s): a request in flight then is SIGKILLed", int(f.Grace/time.Second), keepAliveWhy(f))
}
