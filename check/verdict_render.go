package check

// How check's verdict reads: a headline that says what was measured, then
// per action its answers and signatures, the later measurements (capacity,
// signal search), what would make the shutdown clean — each line tagged
// [measured: …] or [not measured: …] — advice, and the troubles that are
// not about shutdown.

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
)

// line is a finding as the verdict prints it: a remedy carries the
// measurement that backs it, or says that nothing here measured it and
// how to.
func (f finding) line() string {
	switch {
	case f.Evidence != "":
		return f.Text + " [measured: " + f.Evidence + "]"
	case f.Unmeasured != "":
		return f.Text + " [not measured: " + f.Unmeasured + "]"
	}
	return f.Text
}

// verdictText renders the findings: the headline, per action its answers
// and signatures, then what would make the shutdown clean (or that it is),
// advice, and last the troubles that are not about shutdown.
func verdictText(o checkOpts, fs []finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict for %s (STOPSIGNAL %s, grace period %d s, %s per action):\n", o.image, o.stopSignal, o.graceS, runsText(max(o.runs, 1)))
	fmt.Fprintf(&b, "  in short: %s\n", headline(fs))
	last := "-"
	var fixes, advice, other, notes []string
	for _, f := range fs {
		switch {
		case f.Kind == findOther:
			other = append(other, f.line())
		case f.Kind == findOverlap:
			notes = append(notes, f.line())
		case f.Action == "" && f.Kind == fixClean:
			fmt.Fprintf(&b, "  %s\n", f.line())
		case f.Action == "" && f.Bad:
			fixes = append(fixes, f.line())
		case f.Action == "":
			advice = append(advice, f.line())
		default:
			if f.Action != last {
				fmt.Fprintf(&b, "  %s:\n", f.Action)
				last = f.Action
			}
			fmt.Fprintf(&b, "    %s\n", f.line())
		}
	}
	section := func(title string, lines []string) {
		if len(lines) > 0 {
			fmt.Fprintf(&b, "  %s:\n", title)
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "    - %s\n", l)
		}
	}
	section("to make it clean", fixes)
	section("advice", advice)
	section("not about shutdown", other)
	section("notes", notes)
	for _, d := range []struct{ what, dir string }{{"capacity variant", o.capacityDir}, {"signal search", o.searchDir}} {
		if d.dir != "" {
			fmt.Fprintf(&b, "  %s measurements: %s\n", d.what, filepath.Join(d.dir, resultdir.MarkdownFile))
		}
	}
	return b.String()
}

// defectWords are the headline's words for the findings that are defects.
var defectWords = map[string]string{
	findDrops: "drops in-flight work", findExitDied: "dies of the signal", findExitOther: "exits with an error code",
	findKilled: "is SIGKILLed at the grace period", findNever: "does not exit by itself",
	sigRestarts: "its stop signal restarts it", sigNoSignal: "the signal never reaches the app",
	sigDrainTooLong: "drains longer than the grace period", sigStuck: "its drain makes no progress",
	sigCutHangs: "cuts its work at the signal and does not exit",
}

// headline says in one line what the check measured and what it found to
// make the shutdown clean, each part marked measured or not.
func headline(fs []finding) string {
	switch verdictCode(fs) {
	case VerdictUnclear:
		return "could not tell (see below: a run was invalid, or a phase split inconclusive)"
	case VerdictClean:
		return "clean (measured): nothing it had accepted failed, and it exited by itself with code 0"
	}
	var defects []string
	var fix string
	for _, f := range fs {
		if w, ok := defectWords[f.Kind]; ok && f.Bad && f.Action != "" && !strings.Contains(strings.Join(defects, "|"), w) {
			defects = append(defects, w)
		}
		if fix == "" && f.Action == "" && f.Bad && strings.HasPrefix(f.Kind, "fix:") {
			fix = shortFix(f)
		}
	}
	if fix == "" {
		fix = "none found"
	}
	return fmt.Sprintf("defect (measured): %s; to make it clean: %s", strings.Join(defects, ", "), fix)
}

// shortFix is a remedy's first words, marked measured or not.
func shortFix(f finding) string {
	text := f.Text
	if i := strings.IndexAny(text, ":("); i > 0 {
		text = strings.TrimSpace(text[:i])
	}
	if f.Evidence != "" {
		return text + " (measured)"
	}
	return text + " (a suggestion, not measured)"
}
