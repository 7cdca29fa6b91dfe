package check

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// rolloutRaces counts, among run r's requests that failed at or after the
// rollout was sent (sentNs), those with the keep-alive race's signature
// (shutdown.IsIdleCloseRace: eof or reset on a reused connection, no
// response byte): the app closed a connection it held idle as the client
// wrote its next request onto it. On a cluster a draining app closes its
// idle keep-alive connections at the stop signal, and a client sending at
// that moment loses that request; HTTP lets a client retry it when it is
// idempotent. The records are read from the run's directory; a run whose
// records cannot be read counts none (ok false).
func rolloutRaces(dir string, v *report.Variant, r *report.Run, sentNs int64) (races int, ok bool) {
	rd := filepath.Join(dir, filepath.FromSlash(report.RunPath(v, r)))
	f, name, err := resultdir.OpenRecords(rd)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	err = report.ReadRecords(f, name, func(q *record.Request) error {
		if q.Class != record.ClassOK && q.Start >= sentNs && shutdown.IsIdleCloseRace(q) {
			races++
		}
		return nil
	}, nil)
	return races, err == nil
}

// raceWords explains the keep-alive race in the verdict.
const raceWords = "eof or reset on a reused keep-alive connection before any response byte, idle_close_race: the app closed a connection it held idle, at its stop signal, as the client sent on it; HTTP lets a client retry such a request when it is idempotent, and a preStop sleep cannot prevent it"

// manifestSleep is the manifest's preStop sleep (0 without a sleep hook).
func manifestSleep(o manifestOpts) time.Duration {
	if h := o.pod.PreStop; h != nil && h.Kind == kube.HookSleep {
		return h.Sleep
	}
	return 0
}

// clusterSearchWords says the smallest pre-stop sleep that measured safe;
// one no longer than the manifest's own sleep, which did not, is no
// advice: the failures then vary from run to run, whatever the sleep.
func clusterSearchWords(s map[int]int, own time.Duration) string {
	keys := slices.Sorted(func(yield func(int) bool) {
		for k := range s {
			if !yield(k) {
				return
			}
		}
	})
	var tried []string
	for _, k := range keys {
		if s[k] == 0 && time.Duration(k)*time.Second <= own {
			return fmt.Sprintf("  to make it safe: not found: preStop sleep %ds measured 0 failed, but the manifest's own %s did not: what fails varies from run to run, whatever the sleep (measure with --runs 3) [measured: pre-stop search]\n", k, dur(own))
		}
		if s[k] == 0 {
			return fmt.Sprintf("  to make it safe: preStop sleep %ds measured safe on this cluster (the smallest whole-second sleep tried: lifecycle.preStop.sleep.seconds: %d, which needs no shell in the image) [measured: pre-stop search]\n", k, k)
		}
		tried = append(tried, fmt.Sprintf("%ds: %d failed", k, s[k]))
	}
	return "  to make it safe: no preStop sleep tried was safe (" + strings.Join(tried, "; ") + "): what fails is not the propagation alone [measured: pre-stop search]\n"
}
