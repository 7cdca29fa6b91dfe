package rollout

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

func TestTallyAndSection(t *testing.T) {
	meta := fixture.RolloutMeta()
	reqs := []record.Request{
		{Start: 900, Class: record.ClassOK, Upstream: "10.0.0.1:8080"},
		{Start: 1100, Class: record.ClassOK, Upstream: "10.0.0.3:8080"},
		{Start: 1200, Class: record.ClassReset, Upstream: "10.0.0.2:8080"},
		{Start: 1300, Class: record.ClassHTTPError, Status: 502},
	}
	rr, s := tally(meta, func(f func(*record.Request)) {
		for i := range reqs {
			f(&reqs[i])
		}
	})
	if rr.OK["o1"] != 1 || rr.OK["n1"] != 1 || rr.Failed["o2"] != 1 || rr.Unattributed != 1 {
		t.Errorf("tally: %+v", rr)
	}
	if len(s.Old) != 2 || s.Old[0].Y != 1 || s.New[1].Y != 1 || s.Failed[1].Y != 2 {
		t.Errorf("bins: old %v new %v failed %v", s.Old, s.New, s.Failed)
	}
	if _, err := renderRollout(s, meta, "t"); err != nil {
		t.Errorf("render: %v", err)
	}
	rr.Variant, rr.Run = "mode=full", 1
	var b strings.Builder
	(&Section{plotted: true, runs: []variantRollout{rr}}).Markdown(&b, &report.Result{})
	for _, want := range []string{"## Rollout", "### mode=full (run 1)", "| 2 | old | o2 | 10.0.0.2:8080 |", "| 137 | true |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("section lacks %q:\n%s", want, b.String())
		}
	}
}
