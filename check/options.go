package check

import (
	"time"

	"github.com/shutdownlab/shutdownlab/gate"
)

// Options are the choices of a check of an image (check IMAGE), as the
// command line gives them, checked.
type Options struct {
	// Image is the local image (never pulled).
	Image string
	// ReadyPath answers 200 once the image is ready; Path is the request
	// target of the clients' GETs (a query allowed).
	ReadyPath, Path string
	// Port is the port it listens on (0: its only EXPOSEd TCP port, else
	// 8080).
	Port int
	// Signal is the signal variant's signal ("": the image's STOPSIGNAL,
	// else SIGTERM).
	Signal string
	// Runs is the repetitions per action; Grace the grace period (whole
	// seconds).
	Runs  int
	Grace time.Duration
	// Signals are the signals the search tries when the verdict names a
	// defect (nil: no search; SearchSignals by default).
	Signals []string
	// Sets are --set values on the generated scenario (--env's as
	// target.env.NAME=VALUE).
	Sets []string
	// Out is the root directory of the result directories.
	Out string
	// Expect is how the runs are judged besides the verdict.
	Expect Expectations
}

// Expectations are --expect's expressions, the variant reference.NAME
// reads (--reference-variant), and --junit's file, which gets the
// verdict's test cases (--expect's go beside it).
type Expectations struct {
	Exprs            []string
	ReferenceVariant string
	JUnit            string
}

// Result is how a check ended, for the exit code: Code is its runs' and
// expectations' (gate.ExitPass, gate.ExitFail when an expectation failed,
// gate.ExitHarness when a run was invalid or the harness failed), Verdict
// its verdict's (VerdictClean when it wrote none).
type Result struct {
	Code    int
	Verdict int
}

// The codes of a verdict: the exit codes they give.
const (
	// VerdictClean: no defect.
	VerdictClean = gate.ExitPass
	// VerdictDefect: the verdict names a defect (check --manifest:
	// unsafe at the stated delay).
	VerdictDefect = gate.ExitFail
	// VerdictUnclear: it could not tell (no valid run, inconclusive
	// phases).
	VerdictUnclear = gate.ExitHarness
)

// SearchSignals are the signals the search tries by default, in the
// order a recommendation prefers them: QUIT (nginx, php-fpm, unicorn), INT
// (lighttpd, many runtimes' Ctrl-C), TERM (most), HUP, WINCH (Apache
// httpd's graceful-stop), USR1 (HAProxy's soft stop).
var SearchSignals = []string{"SIGQUIT", "SIGINT", "SIGTERM", "SIGHUP", "SIGWINCH", "SIGUSR1"}

// Defaults of a manifest check: the propagation delays swept, and the
// delay judged when --propagation is not given.
var (
	DefaultPropagation = []time.Duration{0, time.Second, 2 * time.Second, 5 * time.Second}
	DefaultDelay       = 2 * time.Second
)
