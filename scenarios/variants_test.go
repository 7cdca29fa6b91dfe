package scenarios

import (
	"strings"
	"testing"
)

// matrix is a scenario with two axes; init comes first in the file and
// must stay first although "mode" sorts before "init".
const matrix = `name: m
target:
  mode: full
  env: {DRAIN_MS: "0"}
variants:
  target.init: [false, true]
  target.mode: [none, close, full]
`

func labels(vs []Variant) string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Label)
	}
	return strings.Join(out, " ")
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		sets   []string
		labels string // space-separated, in expansion order
		slugs  string
	}{
		// no variants: one variant called default
		{"no variants", "name: t\n", nil, "default", "default"},
		// file order of keys, last key fastest, product of sizes
		{"matrix order", matrix, nil,
			"init=false,mode=none init=false,mode=close init=false,mode=full init=true,mode=none init=true,mode=close init=true,mode=full",
			"init-false_mode-none init-false_mode-close init-false_mode-full init-true_mode-none init-true_mode-close init-true_mode-full"},
		// a --set on a variant key narrows that axis to its value
		{"set narrows an axis", matrix, []string{"target.mode=full"},
			"init=false,mode=full init=true,mode=full", "init-false_mode-full init-true_mode-full"},
		// even to a value not in the file's list
		{"set narrows to a new value", matrix, []string{"target.init=true", "target.mode=close"},
			"init=true,mode=close", "init-true_mode-close"},
		// a --set on other keys leaves the matrix alone
		{"set on a non-variant key", matrix, []string{"runs=1", "load.duration=2s", "action.at=1s"},
			"init=false,mode=none init=false,mode=close init=false,mode=full init=true,mode=none init=true,mode=close init=true,mode=full",
			"init-false_mode-none init-false_mode-close init-false_mode-full init-true_mode-none init-true_mode-close init-true_mode-full"},
		// keys sharing their last segment are labelled by the full path
		// (action.grace_period by the name results record it under)
		{"ambiguous short keys", "name: t\naction: {kind: stop}\nvariants:\n  load.timeout: [1s]\n  action.grace_period: [10s, 20s]\n", nil,
			"load.timeout=1s,action.timeout=10s load.timeout=1s,action.timeout=20s",
			"load.timeout-1s_action.timeout-10s load.timeout-1s_action.timeout-20s"},
		// env keys: upper case label, lower case slug
		{"env axis", "name: t\nvariants:\n  target.env.DRAIN_MS: [\"0\", 5000]\n", nil,
			"DRAIN_MS=0 DRAIN_MS=5000", "drain_ms-0 drain_ms-5000"},
		// characters outside [a-z0-9._-] become '-'
		{"slug sanitises", "name: t\nvariants:\n  target.env.X: [\"a b/c:D\"]\n", nil, "X=a b/c:D", "x-a-b-c-d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := parse("t.yaml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			vs, err := sc.Expand(tt.sets)
			if err != nil {
				t.Fatal(err)
			}
			if got := labels(vs); got != tt.labels {
				t.Errorf("labels:\n got %s\nwant %s", got, tt.labels)
			}
			var slugs []string
			for _, v := range vs {
				slugs = append(slugs, v.Slug)
			}
			if got := strings.Join(slugs, " "); got != tt.slugs {
				t.Errorf("slugs:\n got %s\nwant %s", got, tt.slugs)
			}
		})
	}
}

// TestExpandSpecs checks each variant's Spec carries its own values, and
// --set values reach every variant.
func TestExpandSpecs(t *testing.T) {
	sc, err := parse("t.yaml", []byte(matrix))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand([]string{"runs=1", "target.env.DRAIN_MS=500", "target.env.SWEEP_MS=100", "target.grace_period=5s", "target.ready_timeout=5s"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 6 {
		t.Fatalf("%d variants, want 6", len(vs))
	}
	for _, v := range vs {
		s := v.Spec
		if string(s.Target.Mode) != v.Params["target.mode"] || formatBool(s.Target.Init) != v.Params["target.init"] {
			t.Errorf("%s: spec mode=%s init=%v, params %v", v.Label, s.Target.Mode, s.Target.Init, v.Params)
		}
		if s.Runs != 1 || s.Target.Env["DRAIN_MS"] != "500" || s.Target.Env["SWEEP_MS"] != "100" ||
			s.Target.StopTimeout == nil || *s.Target.StopTimeout != Seconds(5) || s.Target.ReadyTimeout != Seconds(5) {
			t.Errorf("%s: --set not applied: %+v", v.Label, s)
		}
		if strings.Join(v.Keys, ",") != "target.init,target.mode" {
			t.Errorf("%s: keys %v", v.Label, v.Keys)
		}
	}
	// the base spec is untouched by Expand
	if sc.Spec.Runs != 3 || sc.Spec.Target.Env["DRAIN_MS"] != "0" {
		t.Errorf("base spec changed: %+v", sc.Spec)
	}
	if len(vs[0].Params) != 2 {
		t.Errorf("params %v", vs[0].Params)
	}
	def, _ := parse("t.yaml", []byte("name: t\n"))
	dv, _ := def.Expand(nil)
	if len(dv) != 1 || dv[0].Params == nil || len(dv[0].Params) != 0 || len(dv[0].Keys) != 0 {
		t.Errorf("default variant %+v", dv)
	}
}

func formatBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestExpandErrors(t *testing.T) {
	tests := []struct {
		name string
		sets []string
		want string
	}{
		// no '=' at all
		{"not key=value", []string{"runs"}, `--set: "runs": want key=value, e.g. load.duration=2s`},
		// an unknown key, named with the known ones
		{"unknown key", []string{"load.durtion=2s"}, `--set: load.durtion: "2s": unknown field "durtion" in load (want one of: shape, clients, rate, duration, max_requests, timeout, fail_pause, stagger, mix, job, kind, hostile, jobs, probe, ws)`},
		{"unknown top-level key", []string{"colour=red"}, `--set: colour: "red": unknown field "colour" at the top level (want one of: name, description, reproduces, runs, target, replicas, load, action, observe, topology, proxy, baseline, platform, swarm, kubernetes, expect, limits)`},
		// lists and mappings cannot be set
		{"set a mapping", []string{"load=x"}, `--set: load: "x": not a single value (lists and mappings cannot be set or varied)`},
		{"set a list", []string{"load.mix=x"}, `--set: load.mix: "x": not a single value (lists and mappings cannot be set or varied)`},
		{"set below a scalar", []string{"runs.x=1"}, `--set: runs.x: "1": runs is a single value and has no field "x"`},
		{"set the name", []string{"name=other"}, `--set: name: "other": cannot be set or varied`},
		// values get the checks a value in the file gets
		{"bad duration", []string{"load.duration=3q"}, `--set: load.duration: "3q": invalid duration (want e.g. 6s, 500ms)`},
		{"bad number", []string{"runs=three"}, `--set: runs: "three": want a whole number`},
		{"bad value on an axis", []string{"target.mode=bogus"}, `--set: target.mode: "bogus": want none, close or full`},
		{"empty value", []string{"runs="}, `--set: runs: empty value (give a value or remove the key)`},
		{"out of range", []string{"runs=0"}, `--set: runs: "0": must be 1..100`},
		// a cross-field error caused by --set points at the field it is about
		{"set breaks a cross-field rule", []string{"load.duration=2s"}, `t.yaml: action.at: "3s": must be before load.duration (2s), so the action happens while load runs`},
		// every error of every --set at once
		{"several", []string{"runs=0", "load.clients=0"}, `--set: runs: "0": must be 1..100` + "\n" + `--set: load.clients: "0": must be 1..1000`},
	}
	sc, err := parse("t.yaml", []byte(matrix))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sc.Expand(tt.sets)
			if err == nil {
				t.Fatalf("no error, want %s", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
