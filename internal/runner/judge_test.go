package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// TestJudge: how the error that ended a run, Ctrl-C, the agent output's
// accounting and a failed records file make a run valid, invalid or
// incomplete, and which reason wins.
func TestJudge(t *testing.T) {
	agentOK := startLine + "\n" + reqLine(0, "ok") + "\n" + summaryLine(1) + "\n"
	tests := []struct {
		name       string
		scenario   string
		output     string // the agent's stdout
		outputErr  bool   // writing records.jsonl failed
		cancelled  bool   // Ctrl-C
		err        error  // the error that ended the run
		want       string // "" = valid; else the exact reason
		prefix     bool   // want is the reason's start (record's words follow)
		incomplete bool
	}{
		{name: "valid", output: agentOK},
		{name: "accounting", output: startLine + "\n" + summaryLine(1) + "\n", want: "accounting: ", prefix: true},
		{name: "no summary", output: startLine + "\n", want: "accounting: " + record.ErrNoSummary.Error()},
		{name: "harness error", output: agentOK, err: errEngine, want: errEngine.Error()},
		// The accounting of a run that failed is not checked: its reason stays.
		{name: "error beats accounting", err: errEngine, want: errEngine.Error()},
		{name: "ctrl-c", output: agentOK, cancelled: true, err: context.Canceled, want: "interrupted", incomplete: true},
		// Cancelled by the harness (not Ctrl-C): not an interruption.
		{name: "cancelled by the run", output: agentOK, err: fmt.Errorf("wait: %w", context.Canceled), want: "wait: context canceled"},
		{name: "output error wins", output: agentOK, outputErr: true, err: errEngine, want: "writing records.jsonl: no space left on device"},
		{name: "output error alone", output: agentOK, outputErr: true, want: "writing records.jsonl: no space left on device"},
		{name: "output error and ctrl-c", output: agentOK, outputErr: true, cancelled: true, err: context.Canceled,
			want: "writing records.jsonl: no space left on device", incomplete: true},
		{name: "probe", scenario: "p5-idle-socket", output: startLine + "\n" + probeLine + "\n"},
		{name: "probe without its line", scenario: "p5-idle-socket", output: startLine + "\n", want: "probe: no probe line"},
		{name: "probe with requests", scenario: "p5-idle-socket", output: agentOK + probeLine + "\n", want: "probe: 1 request records in a probe run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := fakeVariant(t, cmpOr(tt.scenario, "direct-inflight"), time.Second)
			load, err := newLoadDriver(v.Spec.Load.Kind)
			if err != nil {
				t.Fatal(err)
			}
			x := &run{spec: v.Spec, load: load, stream: newAgentStream(), meta: record.Meta{Valid: true}}
			x.stream.Write([]byte(strings.ReplaceAll(tt.output, "$NOW", "1")))
			if tt.outputErr {
				x.stream.fail(recordsFile, noSpace)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelled {
				cancel()
			}
			x.judge(ctx, tt.err)
			m := x.meta
			reasonOK := m.InvalidReason == tt.want || tt.prefix && strings.HasPrefix(m.InvalidReason, tt.want)
			if m.Valid != (tt.want == "") || !reasonOK || m.Incomplete != tt.incomplete {
				t.Errorf("valid %v reason %q incomplete %v; want reason %q incomplete %v",
					m.Valid, m.InvalidReason, m.Incomplete, tt.want, tt.incomplete)
			}
		})
	}
}
