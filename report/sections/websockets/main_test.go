package websockets

import (
	"os"
	"testing"

	"github.com/shutdownlab/shutdownlab/report/sections/internal/sectiontest"
)

func TestMain(m *testing.M) {
	sectiontest.Install()
	os.Exit(m.Run())
}
