package websockets_test

// Importing package capabilities installs the program's capabilities
// into report for every test of this package, internal ones included
// (which cannot import it: it imports this package).
import _ "github.com/shutdownlab/shutdownlab/capabilities"
