package runner_test

// The capabilities' load kinds (the probe's: capabilities/probe) register
// their scenario blocks and their drivers from their own init functions,
// and the fake runs of this package's tests include catalog scenarios of
// theirs (p5-idle-socket). This package's own tests cannot import a
// capability (it imports this package), so this external test file links
// the program's list of capabilities into the test binary: every test
// here, internal or external, runs with the kinds and drivers registered
// as the program has them.
import _ "github.com/shutdownlab/shutdownlab/capabilities"
