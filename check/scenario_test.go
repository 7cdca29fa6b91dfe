package check

import (
	"github.com/shutdownlab/shutdownlab/scenarios"
	"slices"
	"strings"
	"testing"
)

// TestCheckScenario: the generated scenario loads, and its two variants
// are the signal (the chosen signal) and docker stop (no signal of its
// own, the grace period as stop timeout), on the declared path and port;
// --set values apply on top.
func TestCheckScenario(t *testing.T) {
	o := checkOpts{image: "my/app:ci", readyPath: "/healthz", path: "/api?x=1", port: 3000,
		signal: "SIGQUIT", stopSignal: "SIGQUIT", graceS: 7, runs: 2}
	sc, err := checkScenario(o)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand([]string{"load.duration=4s", "action.at=2s", "target.mode=none"})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, v := range vs {
		labels = append(labels, v.Label)
	}
	if !slices.Equal(labels, []string{"kind=signal", "kind=stop"}) {
		t.Fatalf("labels %q", labels)
	}
	sig, stop := vs[0].Spec, vs[1].Spec
	if sig.Action.Kind != scenarios.ActionSignal || sig.Action.Signal != "SIGQUIT" {
		t.Errorf("signal variant action %+v", sig.Action)
	}
	if stop.Action.Kind != scenarios.ActionStop || stop.Action.Signal != "" || stop.Action.Timeout != nil {
		t.Errorf("stop variant action %+v, want docker stop with the container's stop timeout", stop.Action)
	}
	tg := stop.Target
	if tg.Image != "my/app:ci" || tg.StopTimeout == nil || *tg.StopTimeout != scenarios.Seconds(7) || tg.Mode != scenarios.ModeNone ||
		tg.Protocol.Port != 3000 || tg.Protocol.ReadyPath != "/healthz" || !slices.Equal(tg.Protocol.Paths, []string{"/api"}) {
		t.Errorf("target %+v", tg)
	}
	if l := stop.Load; l.Clients != 20 || l.Mix[0].Path != "/api?x=1" || l.Duration != scenarios.Seconds(4) || stop.Runs != 2 {
		t.Errorf("load %+v runs %d", l, stop.Runs)
	}
	if stop.Observe.Window != scenarios.Seconds(12) {
		t.Errorf("window %s, want grace + 5s", stop.Observe.Window)
	}
	if name := sc.Name(); name != "check-my-app-ci" {
		t.Errorf("name %s", name)
	}
}

// TestVerdictText: findings are grouped under their action; the remedies
// come last under "to make it clean".
func TestVerdictText(t *testing.T) {
	o := checkOpts{image: "x:1", stopSignal: "SIGTERM", graceS: 10, runs: 1}
	got := verdictText(o, verdict([]actionRuns{sigAction(run(20, 0, 20, 0, 2, 12)), stopAction(run(20, 0, 20, 0, 2, 15))}))
	for _, want := range []string{"verdict for x:1 (STOPSIGNAL SIGTERM, grace period 10 s", "\n  signal SIGTERM:\n    drops in-flight work: yes",
		"\n  docker stop -t 10:\n", "\n  to make it clean:\n    - handle the stop signal"} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks %q:\n%s", want, got)
		}
	}
}
