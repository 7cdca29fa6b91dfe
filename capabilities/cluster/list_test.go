package cluster_test

// The scenarios of C3 and C4 (cluster-teardown, cluster-proxy) drive
// load.kind hostile, which capabilities/hostile registers with package
// scenarios from its init. As scenarios' own tests do, this external test
// file links the program's list of capabilities into the test binary, so
// every test here finds the catalog's scenarios as the program does.
import _ "github.com/shutdownlab/shutdownlab/capabilities"
