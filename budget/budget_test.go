package budget

import (
	"strings"
	"testing"
)

func TestAudit(t *testing.T) {
	grace10 := func(in Input) Input { in.GraceMS, in.GraceFrom = 10000, GraceFromAction; return in }
	env := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		in      Input
		verdict Verdict
		exitBy  int
		text    []string // substrings of Text
	}{
		{"no action", Input{Mode: modeFull, NoAction: true}, NoAction, 0, []string{"no stop action"}},
		{"mode none: no shutdown", grace10(Input{Mode: modeNone, Steps: 20, StepMS: 1000}), NoShutdown, 0, []string{"mode none", "no final log"}},
		{"J1 close waits for a whole job", grace10(Input{Mode: modeClose, Steps: 20, StepMS: 1000, HTTPMS: 300}), Exceeds, 20000,
			[]string{"budget exceeds", "a whole job, 20 × 1s", "> grace 10s (action.timeout)", "SIGKILL"}},
		{"close: a short job fits", grace10(Input{Mode: modeClose, Steps: 3, StepMS: 500}), Fits, 1500, []string{"budget fits", "exits by 1.5s"}},
		{"close: the request is longer than the job", grace10(Input{Mode: modeClose, Steps: 1, StepMS: 100, HTTPMS: 300}), Fits, 300, []string{"a request of 300ms"}},
		{"J2 full hands back at the worker deadline", grace10(Input{Mode: modeFull, Steps: 20, StepMS: 1000}), Fits, 6000,
			[]string{"exits by 6s (WORKER_DEADLINE_MS 5s + a step of 1s) < grace 10s", "handed back"}},
		{"full: a short job completes", grace10(Input{Mode: modeFull, Steps: 3, StepMS: 500}), Fits, 1500, []string{"a whole job, 3 × 500ms"}},
		{"full: the pre-stop wait dominates", grace10(Input{Mode: modeFull, Steps: 2, StepMS: 100, HTTPMS: 300, Env: env("PRESTOP_MS", "3000")}), Fits, 3300,
			[]string{"PRESTOP_MS 3s + a request of 300ms"}},
		{"full: a long worker deadline exceeds", grace10(Input{Mode: modeFull, Steps: 20, StepMS: 1000, Env: env("WORKER_DEADLINE_MS", "9500")}), Exceeds, 10500, nil},
		{"J3 drain deadline = grace", Input{Mode: modeFull, GraceMS: 30000, GraceFrom: GraceFromTarget, Steps: 60, StepMS: 1000,
			Env: env("DRAIN_MS", "30000", "WORKER_DEADLINE_MS", "60000")}, Exceeds, 30000,
			[]string{"exits by 30s (DRAIN_MS 30s) = grace 30s (target.stop_timeout)", "no margin, the exit races the SIGKILL"}},
		{"J3 fixed: drain deadline under the grace", Input{Mode: modeFull, GraceMS: 30000, GraceFrom: GraceFromTarget, Steps: 60, StepMS: 1000,
			Env: env("DRAIN_MS", "25000", "WORKER_DEADLINE_MS", "60000")}, Fits, 25000, []string{"exit 1 at DRAIN_MS"}},
		{"J5 restart moves the drain deadline past the grace", grace10(Input{Mode: modeFull, Steps: 20, StepMS: 1000, AgainMS: 5000,
			Env: env("DRAIN_MS", "8000", "WORKER_DEADLINE_MS", "60000", "REPEAT_SIGNAL", "restart")}), Exceeds, 13000,
			[]string{"DRAIN_MS 8s after the signal again at 5s", "REPEAT_SIGNAL=restart"}},
		{"J5 ignore keeps it", grace10(Input{Mode: modeFull, Steps: 20, StepMS: 1000, AgainMS: 5000,
			Env: env("DRAIN_MS", "8000", "WORKER_DEADLINE_MS", "60000")}), Fits, 8000, nil},
		{"J4 pool closed first: a note", grace10(Input{Mode: modeFull, Steps: 2, StepMS: 100, Env: env("POOL_CLOSE", "first")}), Fits, 200,
			[]string{"POOL_CLOSE=first"}},
		{"signal: no grace period", Input{Mode: modeClose, Steps: 20, StepMS: 1000}, NoGrace, 20000, []string{"no grace period", "exits by 20s"}},
		{"a variable that does not parse", grace10(Input{Mode: modeFull, Env: env("DRAIN_MS", "5s")}), Unknown, 0, []string{`DRAIN_MS="5s"`}},
		{"an unknown mode", grace10(Input{}), Unknown, 0, []string{`mode ""`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Audit(tt.in)
			if b.Verdict != tt.verdict || b.ExitByMS != tt.exitBy || b.Fits != (tt.verdict == Fits) {
				t.Errorf("verdict %s fits %v exit by %d, want %s %d (%s)", b.Verdict, b.Fits, b.ExitByMS, tt.verdict, tt.exitBy, b.Text)
			}
			for _, s := range tt.text {
				if !strings.Contains(b.Text, s) {
					t.Errorf("text %q lacks %q", b.Text, s)
				}
			}
			if strings.Contains(b.Text, "\n") {
				t.Errorf("text is not one line: %q", b.Text)
			}
		})
	}
}

// grid is every combination of the audit's inputs that matters: modes,
// grace periods (and none), variables (unset, bug values, one that does
// not parse), jobs short and long, with and without HTTP, a second
// signal.
func grid() []Input {
	envs := []map[string]string{nil,
		{"WORKER_DEADLINE_MS": "60000"},
		{"DRAIN_MS": "8000", "WORKER_DEADLINE_MS": "60000", "REPEAT_SIGNAL": "restart"},
		{"DRAIN_MS": "30000", "PRESTOP_MS": "3000", "POOL_CLOSE": "first"},
		{"DRAIN_MS": "2000"},
		{"PRESTOP_MS": "soon"},
	}
	graces := []struct {
		ms   int
		from string
	}{{0, ""}, {10000, GraceFromAction}, {30000, GraceFromTarget}, {10000, GraceFromDocker}}
	var out []Input
	for _, mode := range []string{modeNone, modeClose, modeFull, "weird"} {
		for _, g := range graces {
			for _, env := range envs {
				for _, job := range [][2]int{{0, 0}, {3, 500}, {20, 1000}, {60, 1000}} {
					for _, http := range []int{0, 300} {
						for _, again := range []int{0, 5000} {
							out = append(out, Input{Mode: mode, GraceMS: g.ms, GraceFrom: g.from, Env: env,
								Steps: job[0], StepMS: job[1], HTTPMS: http, AgainMS: again})
						}
					}
				}
			}
		}
	}
	return append(out, Input{Mode: modeFull, NoAction: true})
}

// TestAuditGrid holds every audit of the grid to the rule's invariants:
// a known verdict, Fits exactly when it fits, the input's grace period,
// one line of text that starts with "budget", and a fit that is strictly
// before the grace period.
func TestAuditGrid(t *testing.T) {
	known := map[Verdict]bool{Fits: true, Exceeds: true, NoShutdown: true, NoGrace: true, NoAction: true, Unknown: true}
	for _, in := range grid() {
		b := Audit(in)
		switch {
		case !known[b.Verdict]:
			t.Fatalf("%+v: verdict %q", in, b.Verdict)
		case b.Fits != (b.Verdict == Fits):
			t.Fatalf("%+v: fits %v with verdict %s", in, b.Fits, b.Verdict)
		case b.GraceMS != in.GraceMS || b.GraceFrom != in.GraceFrom:
			t.Fatalf("%+v: grace %d (%s)", in, b.GraceMS, b.GraceFrom)
		case !strings.HasPrefix(b.Text, "budget") || strings.Contains(b.Text, "\n"):
			t.Fatalf("%+v: text %q", in, b.Text)
		case b.Verdict == Fits && b.ExitByMS >= in.GraceMS, b.Verdict == Exceeds && b.ExitByMS < in.GraceMS:
			t.Fatalf("%+v: %s with exit by %d, grace %d", in, b.Verdict, b.ExitByMS, in.GraceMS)
		}
	}
}
