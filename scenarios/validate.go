package scenarios

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Limits checked by validation.
const (
	// MaxRuns bounds runs.
	MaxRuns = 100
	// MaxReplicas bounds replicas.
	MaxReplicas = 16
	// MaxClients bounds load.clients.
	MaxClients = 1000
	// MaxDuration bounds load.duration.
	MaxDuration = time.Hour
	// MaxWindow bounds observe.window.
	MaxWindow = 10 * time.Minute
	// MaxRequestsCap bounds load.max_requests.
	MaxRequestsCap = 10_000_000
	// MaxBodyBytes bounds a mix entry's body_bytes.
	MaxBodyBytes = 1 << 20
)

// Signals are the signal names an action of kind signal may send. SIGWINCH
// is Apache httpd's graceful stop (and the official httpd image's STOPSIGNAL).
var Signals = []string{"SIGTERM", "SIGINT", "SIGKILL", "SIGQUIT", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGWINCH"}

// Methods are the HTTP methods a mix entry may use.
var Methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

var (
	nameRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	claimRE = regexp.MustCompile(`^[PWJC][1-9][0-9]*$`)
	envRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// normalize rewrites accepted spellings into their canonical form: signal
// names get upper case and the SIG prefix; kind signal without a signal
// sends SIGTERM; the description loses the trailing newline of a folded
// block.
func (s *Spec) normalize() {
	s.Description = strings.TrimSpace(s.Description)
	a := &s.Action
	if a.Kind == ActionSignal && a.Signal == "" {
		a.Signal = "SIGTERM"
	}
	s.normalizeProxy()
	s.normalizeSteps()
	s.normalizePlatform()
	s.normalizeActionBlocks()
	if sig, ok := normalizeSignal(a.Signal); ok {
		a.Signal = sig
	}
}

// normalizeSignal maps "TERM", "term", "sigterm" to "SIGTERM".
func normalizeSignal(name string) (string, bool) {
	sig := "SIG" + strings.TrimPrefix(strings.ToUpper(name), "SIG")
	if slices.Contains(Signals, sig) {
		return sig, true
	}
	return name, false
}

// FailFunc records one problem: the field's path, its value as written and
// what is wrong with it.
type FailFunc = func(path, value, msg string)

// validate checks a decoded, normalised spec and returns every problem,
// section by section in file order.
func validate(s *Spec, loc *locator) ValidationErrors {
	var errs ValidationErrors
	fail := func(path, value, msg string) { errs = append(errs, loc.errAt(path, value, msg)) }
	validateHeader(s, fail)
	validateRuntime(s, fail)
	validateLoad(&s.Load, fail)
	validateMix(s.Load.Mix, fail)
	validateJob(&s.Load, fail)
	validateAction(s, fail)
	validateTopology(s, fail)
	validateLoadKind(s, loc, fail)
	validateTarget(s, loc, fail)
	validateProgram(s, fail)
	validateSteps(s, fail)
	validatePlatform(s, fail)
	validateActionBlocks(s, fail)
	validateAgain(s, fail)
	validateLimits(s, fail)
	if w := s.Observe.Window; w <= 0 || w.D() > MaxWindow {
		fail("observe.window", w.String(), "must be > 0 and at most 10m")
	}
	return errs
}

// validateHeader checks name, reproduces and runs.
func validateHeader(s *Spec, fail FailFunc) {
	if s.Name == "" {
		fail("name", "", "required")
	} else if !nameRE.MatchString(s.Name) {
		fail("name", s.Name, "want letters, digits, '.', '_' and '-' only")
	}
	for i, c := range s.Reproduces {
		if !claimRE.MatchString(c) {
			fail(fmt.Sprintf("reproduces[%d]", i), c, "want a published claim id like P2")
		}
	}
	if s.Runs < 1 || s.Runs > MaxRuns {
		fail("runs", strconv.Itoa(s.Runs), fmt.Sprintf("must be 1..%d", MaxRuns))
	}
}

// validateRuntime checks how the target runs: target.runtime, mode,
// grace_period, ready_timeout and env, and replicas. (validateTarget checks
// the image, entrypoint and protocol.)
func validateRuntime(s *Spec, fail FailFunc) {
	switch s.Target.Runtime {
	case RuntimeGo, RuntimeNode:
	default:
		fail("target.runtime", string(s.Target.Runtime), "want go or node")
	}
	switch s.Target.Mode {
	case ModeNone, ModeClose, ModeFull:
	default:
		fail("target.mode", string(s.Target.Mode), "want none, close or full")
	}
	if d := s.Target.StopTimeout; d != nil {
		checkSeconds(fail, "target.grace_period", *d)
	}
	if d := s.Target.ReadyTimeout; d < MinReadyTimeout || d > MaxReadyTimeout {
		fail("target.ready_timeout", d.String(), fmt.Sprintf("must be %s..%s", MinReadyTimeout, MaxReadyTimeout))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Target.Env)) {
		v := s.Target.Env[k]
		switch {
		case !envRE.MatchString(k):
			fail("target.env."+k, v, "not a valid environment variable name")
		case s.Target.Image != "":
			// A user's image gets no variable from the harness: any name is
			// the user's own.
		case k == "MODE":
			fail("target.env."+k, v, "set by the harness from target.mode (for the built-in target; a target.image may set it)")
		case k == "PORT":
			fail("target.env."+k, v, "set by the harness (for the built-in target; a target.image may set it)")
		}
	}
	if s.Replicas < 1 || s.Replicas > MaxReplicas {
		fail("replicas", strconv.Itoa(s.Replicas), fmt.Sprintf("must be 1..%d", MaxReplicas))
	}
}

// validateLoad checks the load's shape, size and time bounds.
func validateLoad(l *LoadSpec, fail FailFunc) {
	itoa := strconv.Itoa
	switch l.Shape {
	case ShapeClosed, ShapeOpen:
	default:
		fail("load.shape", string(l.Shape), "want closed or open")
	}
	if l.Clients < 1 || l.Clients > MaxClients {
		fail("load.clients", itoa(l.Clients), fmt.Sprintf("must be 1..%d", MaxClients))
	}
	rate := strconv.FormatFloat(l.Rate, 'g', -1, 64)
	switch {
	case l.Rate < 0:
		fail("load.rate", rate, "must not be negative")
	case l.Shape == ShapeOpen && l.Rate == 0:
		fail("load.rate", rate, "required (> 0 requests/second) for shape open")
	case l.Shape == ShapeClosed && l.Rate != 0:
		fail("load.rate", rate, "only for shape open (a closed loop has no rate)")
	}
	if l.Duration <= 0 || l.Duration.D() > MaxDuration {
		fail("load.duration", l.Duration.String(), "must be > 0 and at most 1h")
	}
	if l.MaxRequests < 1 || l.MaxRequests > MaxRequestsCap {
		fail("load.max_requests", itoa(l.MaxRequests), fmt.Sprintf("must be 1..%d", MaxRequestsCap))
	}
	if l.Timeout <= 0 {
		fail("load.timeout", l.Timeout.String(), "must be > 0")
	}
	if l.FailPause < 0 || l.FailPause.D() > time.Minute {
		fail("load.fail_pause", l.FailPause.String(), "must be in 0..1m")
	}
	if l.Stagger != nil && (*l.Stagger < 0 || *l.Stagger > l.Duration) {
		fail("load.stagger", l.Stagger.String(), "must be in 0..load.duration")
	}
}

// validateMix checks load.mix: at least one request, each well-formed.
func validateMix(mix []Request, fail FailFunc) {
	if len(mix) == 0 {
		fail("load.mix", "", "want at least one request")
	}
	for i, r := range mix {
		p := fmt.Sprintf("load.mix[%d]", i)
		if !slices.Contains(Methods, r.Method) {
			fail(p+".method", r.Method, "want one of "+strings.Join(Methods, ", "))
		}
		switch {
		case !strings.HasPrefix(r.Path, "/"):
			fail(p+".path", r.Path, `must start with "/"`)
		case strings.ContainsFunc(r.Path, func(c rune) bool { return c <= ' ' || c == 0x7f }):
			fail(p+".path", r.Path, "must not contain spaces or control characters")
		}
		if r.Weight < 1 {
			fail(p+".weight", strconv.Itoa(r.Weight), "must be >= 1")
		}
		if r.BodyBytes < 0 || r.BodyBytes > MaxBodyBytes {
			fail(p+".body_bytes", strconv.Itoa(r.BodyBytes), fmt.Sprintf("must be 0..%d", MaxBodyBytes))
		}
	}
}

// validateJob checks load.job, when there is one: its size, and that it
// starts while the load runs.
func validateJob(l *LoadSpec, fail FailFunc) {
	j := l.Job
	if j == nil {
		return
	}
	if j.Steps < 1 || j.Steps > 10000 {
		fail("load.job.steps", strconv.Itoa(j.Steps), "must be 1..10000")
	}
	if j.StepMS < 0 || j.StepMS > 600000 {
		fail("load.job.step_ms", strconv.Itoa(j.StepMS), "must be 0..600000")
	}
	if j.At < 0 {
		fail("load.job.at", j.At.String(), "must not be negative")
	} else if j.At >= l.Duration && l.Duration > 0 {
		fail("load.job.at", j.At.String(), fmt.Sprintf("must be before load.duration (%s)", l.Duration))
	}
}

// validateAction checks action: its kind, the settings only some kinds
// take (stop_signal, grace_period), when it happens and which replica it hits.
func validateAction(s *Spec, fail FailFunc) {
	a, l := &s.Action, &s.Load
	validateActionKind(s, fail)
	sends := a.Kind == ActionSignal || a.Kind == ActionRoll && a.Roll.Via == ActionSignal
	stops := a.Kind == ActionStop || a.Kind == ActionRoll && a.Roll.Via == ActionStop
	if sends {
		if !slices.Contains(Signals, a.Signal) {
			fail("action.stop_signal", a.Signal, "unknown signal (want one of "+strings.Join(Signals, ", ")+")")
		}
	} else if a.Signal != "" {
		fail("action.stop_signal", a.Signal, "only for kind signal or roll via signal (docker stop sends the image's stop signal)")
	}
	if a.Timeout != nil {
		if !stops {
			fail("action.grace_period", a.Timeout.String(), "only for kind stop or roll via stop (a signal has no grace period)")
		} else {
			checkSeconds(fail, "action.grace_period", *a.Timeout)
		}
	}
	if a.At < 0 {
		fail("action.at", a.At.String(), "must not be negative")
	} else if a.Kind != ActionNone && !l.kindDef().PastDuration && a.At >= l.Duration && l.Duration > 0 {
		fail("action.at", a.At.String(), fmt.Sprintf("must be before load.duration (%s), so the action happens while load runs", l.Duration))
	}
	if a.Replica < 0 || a.Replica >= s.Replicas && s.Replicas >= 1 {
		fail("action.replica", strconv.Itoa(a.Replica), fmt.Sprintf("must be 0..%d (replicas is %d)", s.Replicas-1, s.Replicas))
	}
}

// checkSeconds checks a Docker timeout: not negative, whole seconds.
func checkSeconds(fail FailFunc, path string, d Duration) {
	switch {
	case d < 0:
		fail(path, d.String(), "must not be negative")
	case !d.WholeSeconds():
		fail(path, d.String(), "must be whole seconds (Docker takes seconds)")
	}
}
