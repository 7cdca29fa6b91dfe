package main

// check --manifest FILE --context CTX: the manifest's workload applied as
// a Deployment in a scratch namespace of a real cluster, behind a
// ClusterIP Service, with the load agent as a pod dialing it; then a real
// rollout (kubectl rollout restart: every pod, each step by the
// Deployment controller, each termination by the kubelet) under load. The
// verdict is read from the clients' records and the API's observations:
// nothing is emulated, and what a cluster does not show is said so.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// Timing of a rollout on the cluster: the load runs before the rollout,
// through it and after it.
const (
	clusterRolloutAt   = 3 * time.Second
	clusterLoadAfter   = 10 * time.Second // load after the rollout's bound is spent
	clusterRolloutWait = 3 * time.Minute
	clusterSleepsMax   = 5 // the pre-stop search tries 1..clusterSleepsMax s
)

// clusterScenario is the scenario of a manifest check on a cluster, as a
// value marshalled once: platform kubernetes with the manifest, the load
// of check --manifest, and a rollout restart. sleeps, when given, are the
// pre-stop search's variant axis.
func clusterScenario(o manifestOpts, f manifestFlags, sleeps []time.Duration) ([]byte, error) {
	grace := o.pod.GracePeriod
	duration := clusterRolloutAt + time.Duration(o.pods())*(grace+5*time.Second) + clusterLoadAfter
	duration = min(duration, 70*time.Second)
	k := map[string]any{"manifest": f.file, "workload": f.workload, "container": f.container}
	if f.image != "" {
		k["image"] = f.image
	}
	spec := map[string]any{
		"name":        checkName(o.pod.Name) + "-cluster",
		"description": fmt.Sprintf("check --manifest %s on a cluster: %s %s rolled by its controller under 20 keep-alive clients.", f.file, o.pod.Kind, o.pod.Name),
		"runs":        o.runs, "platform": "kubernetes", "topology": "direct", "replicas": o.pod.Replicas,
		"kubernetes": k,
		"target": map[string]any{"image": o.image,
			"protocol": map[string]any{"port": o.port, "ready_path": o.readyPath, "paths": []string{strings.SplitN(o.path, "?", 2)[0]}}},
		"load": map[string]any{"clients": checkClients, "duration": duration.String(),
			"mix": []map[string]any{{"method": "GET", "path": o.path}}},
		"action": map[string]any{"kind": "rollout", "at": clusterRolloutAt.String(),
			"rollout": map[string]any{"timeout": clusterRolloutWait.String(), "healthcheck": map[string]any{"probe": "none"}}},
		"observe": map[string]any{"window": (duration + grace).String()},
	}
	if len(sleeps) > 0 {
		var vs []string
		for _, s := range sleeps {
			vs = append(vs, s.String())
		}
		spec["variants"] = map[string]any{"kubernetes.pre_stop_sleep": vs}
	}
	return yaml.Marshal(spec)
}

// runManifestOnCluster is check --manifest with --context: the rollout on
// the cluster, its verdict, and the pre-stop search it calls for.
func runManifestOnCluster(ctx context.Context, p *runPlan, o manifestOpts, f manifestFlags, stdout, stderr io.Writer) (int, error) {
	src, err := clusterScenario(o, f, nil)
	if err != nil {
		return exitInvalid, err
	}
	g, code, err := p.runGenerated(ctx, manifestFile, src, f.sets, f.out, stdout, stderr)
	if g.res == nil {
		return code, err
	}
	facts := clusterFactsOf(g.res)
	if !facts.safe() && facts.killed == 0 && facts.runs > 0 && err == nil && ctx.Err() == nil {
		var sleeps []time.Duration
		for s := 1; s <= clusterSleepsMax; s++ {
			sleeps = append(sleeps, time.Duration(s)*time.Second)
		}
		ssrc, serr := clusterScenario(o, f, sleeps)
		if serr == nil {
			sp := *p
			sp.scs, sp.onReport = nil, nil
			sg, scode, _ := sp.runGenerated(ctx, manifestFile+" pre-stop search", ssrc, f.sets, f.out, stdout, stderr)
			code = max(code, scode)
			if sg.res != nil {
				facts.search, facts.searchDir = clusterSearchOf(sg.res), sg.dir
			}
		}
	}
	facts.interrupted = ctx.Err() != nil
	text, vcode := clusterVerdict(o, facts)
	fmt.Fprint(stdout, "\n"+text)
	if werr := resultdir.WriteFileAtomic(filepath.Join(g.dir, resultdir.VerdictFile), []byte(text)); werr != nil {
		fmt.Fprintf(stderr, "shutdownlab: %v\n", werr)
	}
	if f.reportOnly && vcode == verdictDefect {
		vcode = verdictClean
	}
	return max(code, vcode), err
}

// clusterFacts are what the rollout runs on the cluster measured.
type clusterFacts struct {
	runs, failed, killed int
	byClass              map[string]int
	// exitMs are the old pods' deletion-to-exit times; codes their exit
	// codes.
	exitMs []float64
	codes  []int
	// notReadyMs and removedMs: from an old pod's deletion (as the watch
	// saw it) to its endpoint turning not ready or terminating, and to its
	// leaving the EndpointSlices.
	notReadyMs, removedMs []float64
	graceS                int
	context, server       string
	incomplete            int
	search                map[int]int // pre-stop sleep (s) -> most failed in a run
	searchDir             string
	interrupted           bool
}

// safe: every valid run completed its rollout with nothing failed.
func (c clusterFacts) safe() bool { return c.runs > 0 && c.failed == 0 && c.incomplete == 0 }

// clusterFactsOf reads the facts of a result's valid runs.
func clusterFactsOf(res *report.Result) clusterFacts {
	c := clusterFacts{byClass: map[string]int{}}
	for _, v := range res.Variants {
		for _, r := range v.Runs {
			if !r.Valid {
				continue
			}
			c.runs++
			c.addRun(r)
		}
	}
	return c
}

// addRun adds one valid run's facts.
func (c *clusterFacts) addRun(r report.Run) {
	var m struct {
		Failed    int            `json:"rollout_failed"`
		Converged bool           `json:"rollout_converged"`
		Killed    int            `json:"old_tasks_killed"`
		ByClass   map[string]int `json:"by_class"`
	}
	if b, err := json.Marshal(&r.Metrics); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	c.failed, c.killed = max(c.failed, m.Failed), max(c.killed, m.Killed)
	if !m.Converged {
		c.incomplete++
	}
	for k, n := range m.ByClass {
		if k != "ok" && k != "not_sent" {
			c.byClass[k] = max(c.byClass[k], n)
		}
	}
	kb := r.Meta.Kubernetes()
	ro := r.Meta.Rollout()
	if kb == nil || ro == nil {
		return
	}
	c.context, c.server = kb.Context, kb.Server
	c.graceS = int(ro.StopGracePeriodMs / 1000)
	for _, p := range kb.Pods {
		if p.DeletionSeenNs == 0 {
			continue
		}
		if p.GraceS != nil {
			c.graceS = *p.GraceS
		}
		if t := exitNs(p); t > 0 {
			c.exitMs = append(c.exitMs, float64(t-p.DeletionSeenNs)/1e6)
		}
		if p.ExitCode != nil {
			c.codes = append(c.codes, *p.ExitCode)
		}
		nr, rm := endpointTimes(kb.Endpoints, p)
		if nr > 0 {
			c.notReadyMs = append(c.notReadyMs, float64(nr-p.DeletionSeenNs)/1e6)
		}
		if rm > 0 {
			c.removedMs = append(c.removedMs, float64(rm-p.DeletionSeenNs)/1e6)
		}
	}
}

// exitNs is the upper bound of a pod's exit (see the runner's kubeExitNs).
func exitNs(p record.KubePod) int64 {
	switch {
	case p.TerminatedNs == 0 && p.FinishedAtNs == 0:
		return 0
	case p.FinishedAtNs == 0:
		return p.TerminatedNs
	case p.TerminatedNs == 0:
		return p.FinishedAtNs + 1e9
	}
	return min(p.TerminatedNs, p.FinishedAtNs+1e9)
}

// endpointTimes are when pod's endpoint was first seen not ready (or
// terminating) after its deletion, and when it left the slices (0: not
// seen).
func endpointTimes(eps []record.KubeEndpoint, p record.KubePod) (notReady, removed int64) {
	for _, e := range eps {
		if e.Pod != p.Name && (p.IP == "" || e.IP != p.IP) || e.ObservedNs < p.DeletionSeenNs {
			continue
		}
		if notReady == 0 && (e.Ready != nil && !*e.Ready || e.Terminating != nil && *e.Terminating) {
			notReady = e.ObservedNs
		}
		if removed == 0 && e.Removed {
			removed = e.ObservedNs
		}
	}
	return notReady, removed
}

// clusterSearchOf reads the pre-stop search: the most failed requests of
// any run, per sleep.
func clusterSearchOf(res *report.Result) map[int]int {
	out := map[int]int{}
	for _, v := range res.Variants {
		s := -1
		if kb := v.Runs; len(kb) > 0 {
			var sleep string
			fmt.Sscanf(v.Label, "pre_stop_sleep=%s", &sleep)
			if d, err := time.ParseDuration(sleep); err == nil {
				s = int(d / time.Second)
			}
		}
		if s < 0 {
			continue
		}
		f := clusterFactsOf(&report.Result{Variants: []report.Variant{v}})
		if f.runs > 0 {
			out[s] = f.failed
			if f.incomplete > 0 {
				out[s] = max(f.failed, 1)
			}
		}
	}
	return out
}

// clusterVerdict words the facts: safe or not, how it failed, the
// measured propagation, the grace period the exits need, and the
// smallest pre-stop sleep that measured safe.
func clusterVerdict(o manifestOpts, c clusterFacts) (string, int) {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict for %s %s (image %s), measured on cluster context %s (%s): a real rollout (kubectl rollout restart) under 20 keep-alive clients, %s:\n",
		o.pod.Kind, o.pod.Name, o.image, orWord(c.context, "?"), orWord(c.server, "?"), runsText(max(o.runs, 1)))
	code := verdictClean
	switch {
	case c.interrupted && c.runs == 0:
		b.WriteString("  interrupted: the check was stopped before a rollout was measured\n")
		return b.String(), verdictUnclear
	case c.runs == 0:
		b.WriteString("  could not tell: no valid run (the report's \"Runs not counted\" says why)\n")
		return b.String(), verdictUnclear
	case c.safe():
		b.WriteString("  rollout: SAFE: no request failed while every pod was replaced\n")
	default:
		code = verdictDefect
		fmt.Fprintf(&b, "  rollout: UNSAFE: up to %d requests failed while the pods were replaced (%s)", c.failed, classWords(c.byClass))
		if c.incomplete > 0 {
			fmt.Fprintf(&b, "; %d run(s) did not complete the rollout within %s", c.incomplete, clusterRolloutWait)
		}
		b.WriteString("\n")
	}
	if len(c.notReadyMs) > 0 {
		fmt.Fprintf(&b, "  propagation start (EndpointSlice): an old pod's endpoint turned not ready %s after its deletion was seen", msSpan(c.notReadyMs))
		if len(c.removedMs) > 0 {
			fmt.Fprintf(&b, ", and left the slice %s after it", msSpan(c.removedMs))
		}
		b.WriteString("; when kube-proxy stopped sending new connections to it, and which pod answered each request, a ClusterIP does not show\n")
	}
	if len(c.exitMs) > 0 {
		slow := slices.Max(c.exitMs)
		need := int((slow+999)/1000) + 2
		fmt.Fprintf(&b, "  exits: old pods exited %s after their deletion (exit codes %s; the API gives whole seconds, so ±1 s); SIGKILLed: %d\n",
			msSpan(c.exitMs), intList(c.codes), c.killed)
		fmt.Fprintf(&b, "  grace period: it needs terminationGracePeriodSeconds %d (the slowest exit + 2 s), the manifest gives %d\n", need, c.graceS)
		if c.killed > 0 {
			code = verdictDefect
		}
	}
	if c.search != nil {
		b.WriteString(clusterSearchWords(c.search))
	}
	if c.searchDir != "" {
		fmt.Fprintf(&b, "  pre-stop search measurements: %s\n", filepath.Join(c.searchDir, resultdir.MarkdownFile))
	}
	return b.String(), code
}

// clusterSearchWords says the smallest pre-stop sleep that measured safe.
func clusterSearchWords(s map[int]int) string {
	keys := slices.Sorted(func(yield func(int) bool) {
		for k := range s {
			if !yield(k) {
				return
			}
		}
	})
	var tried []string
	for _, k := range keys {
		if s[k] == 0 {
			return fmt.Sprintf("  to make it safe: preStop sleep %ds measured safe on this cluster (the smallest whole-second sleep tried: lifecycle.preStop.sleep.seconds: %d, which needs no shell in the image) [measured: pre-stop search]\n", k, k)
		}
		tried = append(tried, fmt.Sprintf("%ds: %d failed", k, s[k]))
	}
	return "  to make it safe: no preStop sleep tried was safe (" + strings.Join(tried, "; ") + "): what fails is not the propagation alone [measured: pre-stop search]\n"
}

func orWord(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// msSpan is "120 ms" or "120-340 ms".
func msSpan(ms []float64) string {
	lo, hi := slices.Min(ms), slices.Max(ms)
	if int(lo) == int(hi) {
		return fmt.Sprintf("%.0f ms", lo)
	}
	return fmt.Sprintf("%.0f-%.0f ms", lo, hi)
}

// intList is "0, 137".
func intList(xs []int) string {
	var out []string
	for _, x := range xs {
		s := fmt.Sprint(x)
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

// classWords is "eof 10, reset 2", or "no class recorded".
func classWords(m map[string]int) string {
	var out []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		if m[k] > 0 {
			out = append(out, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(out) == 0 {
		return "no class recorded"
	}
	return strings.Join(out, ", ")
}
