package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
)

func TestReadResourceSamples(t *testing.T) {
	dir := t.TempDir()
	if s, err := ReadResourceSamples(dir); s != nil || err != nil {
		t.Fatalf("no file: %v, %v; want nothing", s, err)
	}
	path := filepath.Join(dir, resultdir.ResourcesFile)
	os.WriteFile(path, []byte(`{"ts_ns":1,"replica":"replica-0","pid":7,"ppid":1,"fds":4,"rss_bytes":8,"threads":1}`+"\n\n"), 0o644)
	s, err := ReadResourceSamples(dir)
	if err != nil || len(s) != 1 || s[0].FDs != 4 || s[0].Replica != "replica-0" {
		t.Fatalf("= %+v, %v", s, err)
	}
	os.WriteFile(path, []byte("{\"ts_ns\":1}\n{oops\n"), 0o644)
	if _, err := ReadResourceSamples(dir); err == nil || !strings.HasPrefix(err.Error(), resultdir.ResourcesFile+":2:") {
		t.Errorf("bad line: error %v, want one naming %s:2", err, resultdir.ResourcesFile)
	}
}
