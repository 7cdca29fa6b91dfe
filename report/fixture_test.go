package report

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
)

// The synthetic result directory used by the golden tests lives in
// testdata/result; go test -update rewrites it with writeFixture, so the
// committed files always match this code.

// fixtureBase is the fixture's load start, Unix ns.
const fixtureBase int64 = 1_800_000_000_000_000_000

// fixtureRun describes one synthetic run.
type fixtureRun struct {
	meta record.Meta
	reqs []record.Request
	gz   bool
	// extraStarted is added to the agent summary's started count (an
	// accounting error when non-zero).
	extraStarted int
}

// at is fixtureBase + n ms.
func at(n float64) int64 { return fixtureBase + ms(n) }

// closedLoop generates workers × back-to-back requests of latMs over
// [0, untilMs) ms, each classed by classify(worker, start ms, end ms).
func closedLoop(workers int, latMs, untilMs float64, classify func(w int, start, end float64) (record.Class, int)) []record.Request {
	var out []record.Request
	for w := range workers {
		// Workers start 10 ms apart, latency grows by 1 ms per worker.
		lat := latMs + float64(w)
		for s := float64(w * 10); s < untilMs; s += lat {
			end := s + lat
			c, status := classify(w, s, end)
			if c == record.ClassNotSent {
				end = s
			}
			r := record.Request{Type: "req", ID: fmt.Sprintf("w%d-%d", w, len(out)), Method: "GET",
				Path: "/slow?ms=300", Worker: w, Conn: uint64(w + 1), Reused: s > float64(w*10),
				Start: at(s), End: at(end), Status: status, Class: c}
			if c != record.ClassNotSent && c != record.ClassRefused {
				r.Written = at(s + 0.1) // the request's bytes left 0.1 ms after it started
			}
			out = append(out, r)
		}
	}
	return out
}

func okAll(int, float64, float64) (record.Class, int) { return record.ClassOK, 200 }

var fixtureFingerprint = record.Fingerprint{CPU: "Synthetic CPU", Cores: 8, Kernel: "6.10.0", OS: "linux/amd64",
	DockerVersion: "29.5.2", DockerAPI: "1.52", GoVersion: "go1.26.8"}

func fixtureMeta(variant string, run int) record.Meta {
	return record.Meta{Scenario: "fixture-roll", Variant: variant, Run: run, Valid: true,
		SetupMs: 1200 + float64(run)*10, TeardownMs: 700 + float64(run)*5,
		LoadStartNs: at(0), LoadEndNs: at(3000), Fingerprint: fixtureFingerprint}
}

// fixtureRuns returns the fixture: mode=close (3 runs: NEVER exits, run 3
// invalid) and mode=full (3 runs: clean exits, one 502 and a reset, run 2 an
// accounting error, run 3 a deadline and a NEVER).
func fixtureRuns() map[string][]fixtureRun {
	closeRuns := make([]fixtureRun, 3)
	for i := range closeRuns {
		run := i + 1
		m := fixtureMeta("mode=close", run)
		m.Action = &record.Action{Kind: "signal", Signal: "SIGTERM", AfterMs: 1500, SentNs: at(1500 + float64(run)), ReturnedNs: at(1501 + float64(run))}
		m.Replicas = []record.Replica{{Name: "app-a", Image: "targetapp:close", StopTimeoutS: intp(10),
			Events: []record.Event{{TimeNs: at(-500), Event: "up", Mode: "close"}, {TimeNs: at(1502), Event: "signal", Signal: "SIGTERM"}}}}
		if run == 3 {
			m.Valid, m.InvalidReason = false, "target never ready"
		}
		closeRuns[i] = fixtureRun{meta: m, reqs: closedLoop(4, 300+float64(run), 3000, okAll), gz: run == 2}
	}

	fullRuns := make([]fixtureRun, 3)
	for i := range fullRuns {
		run := i + 1
		m := fixtureMeta("mode=full", run)
		m.Action = &record.Action{Kind: "stop", StopTimeoutS: intp(10), AfterMs: 1500, SentNs: at(1500), ReturnedNs: at(3700)}
		rep := record.Replica{Name: "app-a", Image: "targetapp:full", Init: true, StopTimeoutS: intp(10),
			Events: []record.Event{{TimeNs: at(-500), Event: "up", Mode: "full"}, {TimeNs: at(1501), Event: "signal", Signal: "SIGTERM"},
				{TimeNs: at(3500), Event: "drained", Ms: floatp(2002 + float64(run)*5)}}}
		exitAfter := []float64{2156.4, 2231.2, 0}[i]
		if exitAfter > 0 {
			rep.Exited, rep.ExitCode, rep.ExitedNs = true, intp(0), at(1500+exitAfter)
		}
		var extra int
		switch run {
		case 2:
			extra = 1
		case 3:
			rep.Events = append(rep.Events, record.Event{TimeNs: at(6500), Event: "deadline", Inflight: intp(1), JobStep: intp(23), JobSteps: intp(30)})
			rep.JobLog = jobLog(23, false)
		}
		m.Replicas = []record.Replica{rep}
		classify := func(w int, s, e float64) (record.Class, int) {
			switch {
			case run == 1 && w == 0 && s > 1500 && s < 1900:
				return record.ClassHTTPError, 502
			case run == 1 && w == 1 && s < 1500 && e > 1500:
				return record.ClassReset, 0
			case run == 3 && w == 3 && s > 2700:
				return record.ClassNotSent, 0
			}
			return record.ClassOK, 200
		}
		fullRuns[i] = fixtureRun{meta: m, reqs: closedLoop(4, 300+float64(run)*2, 3000, classify), extraStarted: extra}
	}
	return map[string][]fixtureRun{"mode-close": closeRuns, "mode-full": fullRuns}
}

// writeFixture writes the synthetic result directory into dir.
func writeFixture(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	refs := []resultdir.VariantRef{{Label: "mode=close", Slug: "mode-close"}, {Label: "mode=full", Slug: "mode-full"}}
	if err := resultdir.WriteVariants(dir, refs); err != nil {
		return err
	}
	for slug, runs := range fixtureRuns() {
		for _, fr := range runs {
			rd := resultdir.RunDir(dir, slug, fr.meta.Run)
			if err := os.MkdirAll(rd, 0o755); err != nil {
				return err
			}
			sum := record.Summary{Type: record.TypeSummary, Started: len(fr.reqs) + fr.extraStarted, ByClass: map[record.Class]int{},
				LoadStart: fr.meta.LoadStartNs, LoadEnd: fr.meta.LoadEndNs, StoppedBy: record.StoppedByDuration}
			for _, r := range fr.reqs {
				sum.ByClass[r.Class]++
			}
			sum.ByClass[record.ClassOK] += fr.extraStarted
			fr.meta.Agent = &sum
			if err := resultdir.WriteJSON(filepath.Join(rd, resultdir.EventsFile), fr.meta); err != nil {
				return err
			}
			if err := writeRecords(rd, fr, &sum); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeRecords(rd string, fr fixtureRun, sum *record.Summary) (err error) {
	name := filepath.Join(rd, resultdir.RecordsFile)
	if fr.gz {
		name = filepath.Join(rd, resultdir.RecordsGzFile)
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	var w io.Writer = f
	if fr.gz {
		zw := gzip.NewWriter(f)
		zw.ModTime = time.Unix(0, 0)
		defer func() {
			if cerr := zw.Close(); err == nil {
				err = cerr
			}
		}()
		w = zw
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(record.Start{Type: "start", LoadStart: fr.meta.LoadStartNs}); err != nil {
		return err
	}
	for _, r := range fr.reqs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	if err := enc.Encode(sum); err != nil {
		return err
	}
	return bw.Flush()
}
