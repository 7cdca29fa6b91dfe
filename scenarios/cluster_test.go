package scenarios

import (
	"strings"
	"testing"
)

// TestProgramAndStepErrors pins the errors of target.program and
// action.before: each names its file, line, field and value.
func TestProgramAndStepErrors(t *testing.T) {
	const node = "name: t\ntarget: {runtime: node, program: cluster}\n"
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"program unknown", "name: t\ntarget: {runtime: node, program: worker}\n",
			[]string{`t.yaml:2: target.program: "worker": want server or cluster`}},
		{"cluster on go", "name: t\ntarget: {program: cluster}\n",
			[]string{`t.yaml:2: target.program: "cluster": the cluster target is Node only (target.runtime is go; want node)`}},
		{"cluster with an image", "name: t\ntarget:\n  image: my/app:1\n  program: cluster\n  protocol: {paths: [/slow]}\n",
			[]string{`t.yaml:4: target.program: "cluster": only for the built-in target (target.image is set)`}},
		{"cluster behind a shell", "name: t\ntarget: {runtime: node, program: cluster, entrypoint: shell}\n",
			[]string{`t.yaml:2: target.program: "cluster": not with target.entrypoint shell (the shell image runs server.js)`}},
		{"backend replica missing", "name: t\ntarget:\n  runtime: node\n  program: cluster\n  env: {BACKEND: \"replica-1:8080\"}\n",
			[]string{`t.yaml:5: target.env.BACKEND: "replica-1:8080": names replica 1 but replicas is 1 (aliases replica-0..replica-0)`}},
		{"crash without cluster", "name: t\ntarget: {runtime: node}\naction:\n  at: 4s\n  before:\n    - {kind: crash, at: 2s}\n",
			[]string{`t.yaml:6: action.before[0].kind: "crash": only with target.program cluster (its primary SIGKILLs a worker on SIGUSR2)`}},
		{"crash with a signal", node + "action:\n  at: 4s\n  before:\n    - {kind: crash, signal: SIGTERM, at: 2s}\n",
			[]string{`t.yaml:6: action.before[0].signal: "SIGTERM": not for kind crash (it sends SIGUSR2)`}},
		{"step kind missing", node + "action:\n  at: 4s\n  before:\n    - {at: 2s}\n",
			[]string{`t.yaml:6: action.before[0].kind: required: crash or signal`}},
		{"step kind unknown", node + "action:\n  at: 4s\n  before:\n    - {kind: restart, at: 2s}\n",
			[]string{`t.yaml:6: action.before[0].kind: "restart": want crash or signal`}},
		{"signal step without signal", node + "action:\n  at: 4s\n  before:\n    - {kind: signal, at: 2s}\n",
			[]string{`t.yaml:6: action.before[0].signal: unknown signal (want one of SIGTERM, SIGINT, SIGKILL, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2, SIGWINCH)`}},
		{"step after the action", node + "action:\n  at: 3s\n  before:\n    - {kind: crash, at: 3s}\n",
			[]string{`t.yaml:6: action.before[0].at: "3s": must be before action.at (3s)`}},
		{"steps out of order", node + "action:\n  at: 4s\n  before:\n    - {kind: crash, at: 2s}\n    - {kind: crash, at: 1s}\n",
			[]string{`t.yaml:7: action.before[1].at: "1s": must not be before the previous step (2s)`}},
		{"negative step", node + "action:\n  at: 4s\n  before:\n    - {kind: crash, at: -1s}\n",
			[]string{`t.yaml:6: action.before[0].at: "-1s": must not be negative`}},
		{"steps before a roll", "name: t\ntarget: {runtime: node, program: cluster}\nreplicas: 2\ntopology: caddy\naction:\n  kind: roll\n  before:\n    - {kind: crash, at: 1s}\n",
			[]string{`t.yaml:7: action.before: only with action kind signal or stop (kind is roll)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errLines(t, tt.src)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestStepsAccepted checks a valid crash-then-stop sequence decodes as
// written, with signals normalised.
func TestStepsAccepted(t *testing.T) {
	src := "name: t\nreplicas: 2\ntarget:\n  runtime: node\n  program: cluster\n  env: {BACKEND: \"replica-1:8080\"}\n" +
		"action:\n  kind: stop\n  at: 4s\n  before:\n    - {kind: crash, at: 1s}\n    - {kind: signal, signal: usr2, at: 1s}\n"
	sc, err := parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Spec
	want := []Step{{Kind: StepCrash, At: Seconds(1)}, {Kind: StepSignal, Signal: "SIGUSR2", At: Seconds(1)}}
	if s.Target.Program != "cluster" || len(s.Action.Before) != 2 || s.Action.Before[0] != want[0] || s.Action.Before[1] != want[1] {
		t.Errorf("got %+v / %+v", s.Target, s.Action.Before)
	}
	if s.Action.Before[0].SignalName() != CrashSignal || s.Action.Before[1].SignalName() != "SIGUSR2" {
		t.Errorf("signal names %q %q", s.Action.Before[0].SignalName(), s.Action.Before[1].SignalName())
	}
	if sc, err := parse("t.yaml", []byte("name: t\ntarget: {program: server}\n")); err != nil || sc.Spec.Target.Program == "cluster" {
		t.Errorf("program server: %v", err)
	}
}

// TestClusterCatalog pins the cluster scenarios' setups: the cluster
// program on Node, the supervisor, and C2's crash before the stop.
func TestClusterCatalog(t *testing.T) {
	supervisors := map[string]string{"cluster-blind": "blind", "cluster-gated": "gated", "cluster-teardown": "gated", "cluster-proxy": "gated"}
	for name, supervisor := range supervisors {
		sc, err := Find(name)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := sc.Expand(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			s := v.Spec
			if s.Target.Program != "cluster" || s.Target.Runtime != RuntimeNode || s.Target.Env["SUPERVISOR"] != supervisor ||
				s.Action.Kind != ActionStop || s.Action.Timeout == nil {
				t.Errorf("%s/%s: %+v %+v", name, v.Label, s.Target, s.Action)
			}
			if grace := s.Action.At + *s.Action.Timeout; grace >= s.Action.At+s.Observe.Window {
				t.Errorf("%s/%s: the window (%s) ends before the grace period's SIGKILL", name, v.Label, s.Observe.Window)
			}
			crash := len(s.Action.Before) == 1 && s.Action.Before[0].Kind == StepCrash
			if crash != (name == "cluster-gated") {
				t.Errorf("%s/%s: steps %+v", name, v.Label, s.Action.Before)
			}
		}
	}
	// C4's backend is replica 1, never acted on.
	sc, err := Find("cluster-proxy")
	if err != nil {
		t.Fatal(err)
	}
	if s := sc.Spec; s.Replicas != 2 || s.Action.Replica != 0 || s.Target.Env["BACKEND"] != "replica-1:8080" || s.Load.Kind != "hostile" {
		t.Errorf("cluster-proxy: replicas %d, acted on %d, BACKEND %q, load %s", s.Replicas, s.Action.Replica, s.Target.Env["BACKEND"], s.Load.Kind)
	}
}
