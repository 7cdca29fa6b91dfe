package check

import (
	"strings"
	"testing"
)

// TestCapacityConclusion: the capacity variant's last line follows the
// same judgement as its try's own line. A try where no request waited is
// clean when nothing written before the signal failed and it exited by
// itself (a request written while the signal was on its way that failed
// is not a drop: the client cannot tell it from the idle-close race), so
// the queue explains the drops; it cuts work in progress only when a
// request written before the signal failed; a try still unclean for
// another reason says so and explains nothing.
func TestCapacityConclusion(t *testing.T) {
	held := func(r runMetrics) runMetrics {
		r.WaitedBeforeSignal = ip(0)
		return r
	}
	waited := run(0, 0, 0, 20, 0, 310)
	waited.WaitedBeforeSignal = ip(3)
	for _, tt := range []struct {
		name     string
		try      runMetrics
		explains bool
		want     string
	}{
		{"clean", held(run(0, 0, 0, 20, 0, 310)), true, "at 4 clients the same stop was clean"},
		{"one failed on the signal's way", held(run(0, 1, 1, 20, 0, 310)), true, "at 4 clients the same stop was clean"},
		{"cuts work in progress", held(run(2, 0, 2, 0, 0, 20)), false, "it cuts work in progress, not only a queue"},
		{"killed, nothing accepted failed", held(run(0, 0, 0, 20, 137, 10040)), false, "no request it had accepted failed, but the stop was not clean"},
		{"requests still waited", waited, false, "requests still waited at 4 clients"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &capacityResult{capacityPlan: capacityPlan{signal: "SIGTERM", clients: 4, clients0: 20, concurrency: 4}, watch: 6,
				tries: []capacityTry{{clients: 4, a: cand("SIGTERM", tt.try)}}}
			if got := c.explains(); got != tt.explains {
				t.Errorf("explains %v, want %v", got, tt.explains)
			}
			lines := capacityLines(c)
			if last := lines[len(lines)-1].Text; !strings.Contains(last, tt.want) {
				t.Errorf("conclusion %q, want it to say %q", last, tt.want)
			}
		})
	}
}
