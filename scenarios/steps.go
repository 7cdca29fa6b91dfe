package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// StepKind is what one step before the stop action does.
type StepKind string

// The step kinds.
const (
	// StepCrash crashes one worker of a supervising program: docker kill
	// -s CrashSignal, which the program answers by killing a worker (only
	// with a target.program whose ProgramDef.Crashes says so).
	StepCrash StepKind = "crash"
	// StepSignal sends Step.Signal (docker kill -s SIGNAL).
	StepSignal StepKind = "signal"
)

// CrashSignal is the signal a crash step sends; a program that takes
// crash steps kills one worker on it.
const CrashSignal = "SIGUSR2"

// MaxSteps bounds action.before.
const MaxSteps = 16

// Step is one thing done to the acted-on replica before the stop action
// (action.before), in order, while the load runs: the article's black-box
// test crashes a worker, waits for the re-fork, then stops the service.
type Step struct {
	// Kind is crash or signal (required).
	Kind StepKind `yaml:"kind" json:"kind"`
	// Signal is the signal of kind signal (required there; normalised like
	// action.stop_signal). Not for kind crash.
	Signal string `yaml:"signal" json:"signal,omitempty"`
	// At is when the step happens, after load start: not before the
	// previous step, and before action.at.
	At Duration `yaml:"at" json:"at"`
}

// SignalName is the signal the step sends.
func (st Step) SignalName() string {
	if st.Kind == StepCrash {
		return CrashSignal
	}
	return st.Signal
}

// normalizeSteps writes each step's signal in its canonical form.
func (s *Spec) normalizeSteps() {
	for i := range s.Action.Before {
		if sig, ok := normalizeSignal(s.Action.Before[i].Signal); ok {
			s.Action.Before[i].Signal = sig
		}
	}
}

// validateSteps checks action.before: the action kinds that take steps,
// each step's kind and signal, and that the steps happen in order before
// the action.
func validateSteps(s *Spec, fail FailFunc) {
	a := &s.Action
	if len(a.Before) == 0 {
		return
	}
	if a.Kind != ActionSignal && a.Kind != ActionStop {
		fail("action.before", "", fmt.Sprintf("only with action kind signal or stop (kind is %s)", a.Kind))
		return
	}
	if len(a.Before) > MaxSteps {
		fail("action.before", "", fmt.Sprintf("at most %d steps (got %d)", MaxSteps, len(a.Before)))
	}
	var prev Duration
	for i, st := range a.Before {
		p := fmt.Sprintf("action.before[%d]", i)
		switch st.Kind {
		case StepCrash:
			validateCrashStep(s, p, fail)
			if st.Signal != "" {
				fail(p+".signal", st.Signal, "not for kind crash (it sends "+CrashSignal+")")
			}
		case StepSignal:
			if !slices.Contains(Signals, st.Signal) {
				fail(p+".signal", st.Signal, "unknown signal (want one of "+strings.Join(Signals, ", ")+")")
			}
		case "":
			fail(p+".kind", "", "required: crash or signal")
		default:
			fail(p+".kind", string(st.Kind), "want crash or signal")
		}
		switch {
		case st.At < 0:
			fail(p+".at", st.At.String(), "must not be negative")
		case st.At < prev:
			fail(p+".at", st.At.String(), fmt.Sprintf("must not be before the previous step (%s)", prev))
		case st.At >= a.At:
			fail(p+".at", st.At.String(), fmt.Sprintf("must be before action.at (%s)", a.At))
		}
		prev = max(prev, st.At)
	}
}

// validateAgain checks action.again: kinds signal and stop only (a signal
// to send again), > 0, and early enough that the observation window still
// watches the replica when it arrives.
func validateAgain(s *Spec, fail FailFunc) {
	a := &s.Action
	if a.Again == nil {
		return
	}
	v := a.Again.String()
	switch {
	case a.Kind != ActionSignal && a.Kind != ActionStop:
		fail("action.again", v, fmt.Sprintf("only with action kind signal or stop (kind is %s)", a.Kind))
	case a.Kind == ActionSignal && a.Signal == "SIGKILL":
		fail("action.again", v, "not after SIGKILL (nothing is left to signal)")
	case *a.Again <= 0:
		fail("action.again", v, "must be > 0")
	case *a.Again >= s.Observe.Window:
		fail("action.again", v, fmt.Sprintf("must be less than observe.window (%s), so the window still watches the replica when it arrives", s.Observe.Window))
	}
}

// validateCrashStep refuses a crash step (at p) unless the target's
// program takes one, naming the programs that do and what they do.
func validateCrashStep(s *Spec, p string, fail FailFunc) {
	if d, ok := ProgramOf(s.Target.Program); ok && d.Crashes != "" {
		return
	}
	var names, does []string
	for _, prog := range crashPrograms() {
		names = append(names, string(prog))
		does = append(does, programs[prog].Crashes)
	}
	if len(names) == 0 {
		fail(p+".kind", string(StepCrash), "no target.program takes a crash step")
		return
	}
	fail(p+".kind", string(StepCrash), "only with target.program "+joinOr(names, ", ")+" ("+strings.Join(does, "; ")+")")
}
