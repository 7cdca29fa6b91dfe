package runner_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities/resources"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/document"
)

// TestResourcesCountConnections samples the Go target (behind
// docker-init) from this host's /proc while 2, then 8, closed-loop
// clients hold one keep-alive connection each. The sampler starts with
// the container, before the target has opened its listener, so the
// baseline is the other variant, not the first sample: the process
// tree's fd total in the last sample before the signal (fds_at_signal)
// differs between the variants by exactly the 6 clients.
func TestResourcesCountConnections(t *testing.T) {
	r := newRunner(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, find(t, "testdata/resources/fds.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := document.Rebuild(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Variants) != 2 {
		t.Fatalf("%d variants, want 2", len(res.Variants))
	}
	var fds [2]int
	for i, v := range res.Variants {
		if len(v.Runs) != 1 || !v.Runs[0].Valid {
			t.Fatalf("%s: runs %+v, want one valid run", v.Label, v.Runs)
		}
		run := v.Runs[0]
		rr := run.Meta.Resources()
		if rr == nil || len(rr.Replicas) != 1 || !rr.Replicas[0].Sampled {
			t.Fatalf("%s: meta resources %+v: want replica-0 sampled (a local engine)", v.Label, rr)
		}
		rep := rr.Replicas[0]
		samples, err := report.ReadResourceSamples(filepath.Join(oc.Dir, v.Slug, run.Name))
		if err != nil {
			t.Fatal(err)
		}
		var at record.ResourceTick
		for _, k := range record.ResourceTicks(samples, "replica-0") {
			if k.TimeNs <= run.Meta.Action.SentNs {
				at = k
			}
		}
		t.Logf("%s: pid %d, %d samples in %d ticks, stopped by %s; at the signal %d processes, %d fds, %d threads",
			v.Label, rep.PID, rep.Samples, rep.Ticks, rep.StoppedBy, at.Processes, at.FDs, at.Threads)
		if at.TimeNs-run.Meta.LoadStartNs < int64(time.Second) || at.Processes != 2 {
			t.Fatalf("%s: last sample before the signal %+v: want one a second into the load, of 2 processes (docker-init, the target)", v.Label, at)
		}
		m := resources.Of(&run.Metrics)
		if m == nil || m.FDsAtSignal == nil || *m.FDsAtSignal != at.FDs || m.PeakRSSBytes == nil || *m.PeakRSSBytes <= 0 {
			t.Fatalf("%s: resource metrics %+v: want fds_at_signal %d and a peak RSS", v.Label, m, at.FDs)
		}
		if rep.StoppedBy != "gone" {
			t.Errorf("%s: sampling stopped by %q, want gone (the target exits after the SIGTERM)", v.Label, rep.StoppedBy)
		}
		fds[i] = at.FDs
	}
	if d := fds[1] - fds[0]; d != 6 {
		t.Errorf("fds_at_signal %d with 2 clients, %d with 8: +%d, want +6 (one per keep-alive connection)", fds[0], fds[1], d)
	}
}
