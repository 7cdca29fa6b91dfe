package scenarios_test

// The capabilities' load kinds (the probe's: capabilities/probe) register
// themselves with this package from their own init functions, and the
// catalog holds scenarios of theirs. This package's own tests cannot
// import a capability (it imports this package), so this external test
// file links the program's list of capabilities into the test binary:
// every test here, internal or external, runs with the kinds registered
// as the program has them.
import _ "github.com/shutdownlab/shutdownlab/capabilities"
