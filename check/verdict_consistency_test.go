package check

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// verdictShape is one shape a check can measure: its two actions and what
// it measured after its first verdict.
type verdictShape struct {
	name    string
	actions []actionRuns
	ex      extras
}

// cand is one signal-search candidate with one run.
func cand(sig string, r runMetrics) actionRuns {
	return actionRuns{Action: sig, Signal: sig, GraceS: 10, WindowS: 6, Runs: []runMetrics{r}}
}

// search is a search result over candidates.
func search(cands ...actionRuns) extras {
	return extras{search: &searchResult{cands: cands, watch: 6, clients: 20}}
}

// skipped is a check run with --search-signals none.
var skipped = extras{searchSkipped: "skipped (--search-signals none)"}

// verdictShapes are the shapes the consistency test walks: every
// signature, with and without a search, with the search finding a clean
// signal or none, and the capacity variant explaining drops or not.
func verdictShapes() []verdictShape {
	clean := run(0, 0, 0, 40, 0, 330)
	ignored := run(0, 0, 0, 300, -1, 0)
	ignoredKilled := withDrain(run(0, 0, 20, 300, 137, 10040), 301)
	drops := run(19, 1, 20, 0, 0, 30)       // a fast shutdown: exit 0, in-flight work cut
	died := run(20, 1, 21, 0, 2, 12)        // no handler
	pyInt := run(13, 0, 13, 0, 0, 356)      // SIGINT as KeyboardInterrupt: exits, drops
	restart := restarted(-1)                // cut, new connections served, no exit
	slowRestart := restarted(137)           // the same, SIGKILLed
	slowRestart.NewConnsAfterSignal = ip(0) // nothing answered within the run
	slowRestart.DrainObservedMs = fp(2498)  // the queued requests answered after the reload
	drain := atKill(withDrain(run(20, 0, 20, 0, 137, 10020), 9800), 20)
	stuck := atKill(run(20, 0, 20, 0, 137, 10020), 20)
	hang := run(20, 0, 20, 0, -1, 0)
	hangKilled := run(20, 0, 20, 0, 137, 10030)
	lateExit := run(0, 0, 0, 0, 0, 12500)
	closeCall := run(0, 0, 0, 40, 0, 6200)
	queued := run(15, 0, 15, 0, 0, 320)
	queued.WaitedBeforeSignal, queued.ServedConcurrency = ip(60), fp(4)
	held := run(0, 0, 0, 20, 0, 310)
	held.WaitedBeforeSignal = ip(0)
	heldDrops := run(4, 0, 4, 0, 0, 20)
	heldDrops.WaitedBeforeSignal = ip(0)
	heldOnItsWay := run(0, 1, 1, 20, 0, 310) // one request written while the signal was on its way failed
	heldOnItsWay.WaitedBeforeSignal = ip(0)
	capacity := func(tries ...runMetrics) *capacityResult {
		c := &capacityResult{capacityPlan: capacityPlan{signal: "SIGTERM", clients: 4, clients0: 20, concurrency: 4}, watch: 6}
		for i, r := range tries {
			c.tries = append(c.tries, capacityTry{clients: 4 >> i, a: cand("SIGTERM", r)})
		}
		return c
	}
	sigQuit := actionRuns{Action: "signal SIGQUIT", Signal: "SIGQUIT", GraceS: 10, WindowS: 15, Runs: []runMetrics{clean}}
	both := func(s, st runMetrics) []actionRuns { return []actionRuns{sigAction(s), stopAction(st)} }
	return []verdictShape{
		{"clean", both(clean, clean), extras{}},
		{"(ii) only", both(run(0, 0, 60, 0, 0, 580), run(0, 0, 60, 0, 0, 590)), extras{}},
		{"(i) ignored, search skipped", both(ignored, ignoredKilled), skipped},
		{"(i) ignored, search: SIGINT drops (the Python PID 1 case)", both(ignored, ignoredKilled), search(cand("SIGQUIT", ignored), cand("SIGINT", pyInt))},
		{"(i) ignored, search: SIGINT clean", both(ignored, ignoredKilled), search(cand("SIGQUIT", ignored), cand("SIGINT", clean))},
		{"restart, search: SIGINT clean", both(restart, restarted(137)), search(cand("SIGQUIT", ignored), cand("SIGINT", clean))},
		{"slow restart, search: none clean", both(restart, slowRestart), search(cand("SIGQUIT", ignored), cand("SIGINT", restart))},
		{"restart, search skipped", both(restart, slowRestart), skipped},
		{"restart, interrupted before the search", both(restart, slowRestart), extras{}},
		{"(iii) late exit, cut at the SIGKILL", both(lateExit, drain), extras{}},
		{"(iii) no clean exit", both(withDrain(run(0, 0, 0, 0, -1, 0), 14000), drain), extras{}},
		{"stuck drain", both(hang, stuck), extras{}},
		{"dies of the signal, search: none clean", both(died, run(20, 0, 20, 0, 143, 30)), search(cand("SIGQUIT", died), cand("SIGINT", died))},
		{"dies of the signal, search skipped", both(died, run(20, 0, 20, 0, 143, 30)), skipped},
		{"fast shutdown, search: SIGQUIT clean", both(drops, drops), search(cand("SIGQUIT", clean), cand("SIGINT", drops))},
		{"fast shutdown, search: SIGINT drops, SIGUSR1 ignored", both(drops, drops), search(cand("SIGINT", drops), cand("SIGUSR1", ignored))},
		{"fast shutdown, search skipped", both(drops, drops), skipped},
		{"clean on the signal variant's signal", []actionRuns{sigQuit, stopAction(run(0, 0, 0, 40, 143, 15))}, extras{}},
		{"cut and hang, search: none clean", both(hang, hangKilled), search(cand("SIGQUIT", hang))},
		{"cutting the grace period close", both(closeCall, closeCall), extras{}},
		{"capacity explains the drops", both(queued, queued), extras{capacity: capacity(held)}},
		{"capacity explains the drops, one failed on the signal's way", both(queued, queued), extras{capacity: capacity(heldOnItsWay)}},
		{"capacity does not explain them, search at 4 clients", both(queued, queued), extras{capacity: capacity(heldDrops), search: search(cand("SIGQUIT", clean)).search}},
		{"no valid run", []actionRuns{sigAction(), stopAction(clean)}, extras{}},
	}
}

// remedyKinds are every remedy rule's kind: the test fails when a rule
// no shape reaches is added, or one disappears.
var remedyKinds = []string{"fix:" + sigNoDelay, "fix:capacity", "fix:stopsignal", "fix:stopsignal-search", "fix:restart",
	"fix:" + sigNoSignal, "fix:grace", "fix:stuck", "fix:handler", "fix:no-clean-signal"}

// TestAdviceConsistency walks every remedy rule against every verdict
// shape: each remedy is backed by a measurement of the check or says it
// was not measured and how to measure it; no suggestion (and no remedy's
// recommended signal) names a signal the same check measured to drop work
// or not stop the server — a measured statement that those signals failed
// may name them; none advises a
// grace period to a server that restarts, never gets the signal, or cuts
// its work and hangs; every defect gets at least one remedy; the headline
// marks the remedy it names measured or not; every rule is reached.
func TestAdviceConsistency(t *testing.T) {
	seen := map[string]bool{}
	for _, sh := range verdictShapes() {
		t.Run(sh.name, func(t *testing.T) {
			fs := verdictWith(sh.actions, sh.ex)
			text := verdictText(checkOpts{image: "x:1", stopSignal: "SIGTERM", graceS: 10, runs: 1}, fs)
			m := measuredSignals(sh.actions, sh.ex.search)
			kinds := map[string]bool{}
			nfix := 0
			for _, f := range fs {
				kinds[f.Kind] = true
				if !strings.HasPrefix(f.Kind, "fix:") {
					continue
				}
				seen[f.Kind] = true
				if f.Bad {
					nfix++
				}
				if f.Evidence == "" && f.Unmeasured == "" {
					t.Errorf("%s: neither measured nor marked as not measured: %q", f.Kind, f.Text)
				}
				if bad := m.refutedIn(f); len(bad) > 0 && (f.Evidence == "" || f.Signal != "") {
					t.Errorf("%s names %q, which this check measured: %s\n%s", f.Kind, bad, m.bad[bad[0]], f.Text)
				}
			}
			if kinds["fix:grace"] && (kinds[sigRestarts] || kinds[sigNoSignal] || kinds[sigCutHangs]) {
				t.Errorf("grace-period advice to a server that does not exit by itself:\n%s", text)
			}
			if verdictCode(fs) == VerdictDefect && nfix == 0 {
				t.Errorf("a defect with nothing under \"to make it clean\":\n%s", text)
			}
			head := strings.SplitN(text, "\n", 3)[1]
			if verdictCode(fs) == VerdictDefect && !strings.Contains(head, "(measured)") {
				t.Errorf("headline does not say what was measured: %q", head)
			}
			t.Logf("\n%s", text)
		})
	}
	for _, k := range remedyKinds {
		if !seen[k] {
			t.Errorf("no shape reaches remedy rule %s", k)
		}
	}
	for k := range maps.Keys(seen) {
		if !slices.Contains(remedyKinds, k) {
			t.Errorf("remedy rule %s is not in remedyKinds: add it, and a shape for it", k)
		}
	}
}
