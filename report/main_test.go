package report

import (
	"os"
	"testing"
)

// TestMain installs the capabilities that are still report's own files,
// in their order in package capabilities (which report's own tests cannot
// import): the tests here read them, none of the others.
func TestMain(m *testing.M) {
	Install(WSCapability, JobsCapability, ResourcesCapability)
	os.Exit(m.Run())
}
