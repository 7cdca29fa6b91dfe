package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// countingTestDriver is a LoadDriver, as a capability package writes one,
// whose load counts its own progress (LoadCounter).
type countingTestDriver struct{ seen int64 }

func (*countingTestDriver) Name() string { return "counting test driver" }
func (*countingTestDriver) Image(context.Context, ImageSource) (string, error) {
	return "counting:test", nil
}
func (*countingTestDriver) Args(LoadView) []string             { return nil }
func (*countingTestDriver) Bound(scenarios.Spec) time.Duration { return time.Second }
func (d *countingTestDriver) Observe(string, []byte)           { d.seen++ }
func (*countingTestDriver) Check(LoadOutput) error             { return nil }
func (*countingTestDriver) Collect(*record.Meta, LoadOutput)   {}
func (*countingTestDriver) Outcome(record.Meta) string         { return "" }
func (d *countingTestDriver) Progress() LoadCount              { return LoadCount{Done: d.seen, Unit: "test lines"} }

// plainTestDriver is a LoadDriver that counts no progress of its own.
type plainTestDriver struct{ countingTestDriver }

// Progress hides the embedded one: plainTestDriver is no LoadCounter.
func (plainTestDriver) Progress(struct{}) {}

// TestRegisterLoadDriverProgress: an exported driver that is a
// LoadCounter reports its own progress, under its own unit, and one
// that is not is counted in requests.
func TestRegisterLoadDriverProgress(t *testing.T) {
	RegisterLoadDriver("count-test", func() LoadDriver { return &countingTestDriver{} })
	RegisterLoadDriver("plain-test", func() LoadDriver { return &plainTestDriver{} })
	t.Cleanup(func() { delete(loadDrivers.entries, "count-test"); delete(loadDrivers.entries, "plain-test") })

	d, err := newLoadDriver("count-test")
	if err != nil {
		t.Fatal(err)
	}
	s := newAgentStream()
	s.other = d.observe
	s.Write([]byte(`{"type":"test_line"}` + "\n" + `{"type":"test_line"}` + "\n" + `{"type":"req","id":"a","class":"ok"}` + "\n"))
	n := (&run{load: d, stream: s}).loadCount()
	if n.Done != 2 || n.Unit != "test lines" {
		t.Fatalf("progress %+v, want 2 test lines", n)
	}
	var out strings.Builder
	(&lineProgress{w: &out}).Load(2*time.Second, n)
	if !strings.Contains(out.String(), "2 test lines") {
		t.Errorf("progress line %q", out.String())
	}

	p, err := newLoadDriver("plain-test")
	if err != nil {
		t.Fatal(err)
	}
	if n := (&run{load: p, stream: s}).loadCount(); n.Done != 1 || n.Unit != "requests" {
		t.Errorf("progress %+v, want the stream's 1 request", n)
	}
}
