package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// errLines loads src as file t.yaml and returns its error, one line each.
func errLines(t *testing.T, src string) []string {
	t.Helper()
	_, err := parse("t.yaml", []byte(src))
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

func TestValidationErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // every error, in order
	}{
		// unknown fields, each with its line; known fields are listed
		{"unknown top-level field", "name: t\nbogus: 1\n", []string{
			"t.yaml:2: bogus: unknown field (want one of: name, description, reproduces, runs, target, replicas, load, action, observe, topology, proxy, baseline, platform, swarm, kubernetes, expect, limits, variants)",
		}},
		{"unknown nested field", "name: t\nload:\n  clients: 5\n  bogus: 3\n", []string{
			"t.yaml:4: load.bogus: unknown field (want one of: shape, clients, rate, duration, max_requests, timeout, fail_pause, stagger, mix, job, kind, hostile, jobs, probe, ws)",
		}},
		// all schema errors of a file are reported together, in line order
		{"several errors at once", "name: t\ntarget:\n  init: maybe\n  colour: red\nload:\n  duration: 3q\n  clients: many\n", []string{
			`t.yaml:3: target.init: "maybe": want true or false`,
			"t.yaml:4: target.colour: unknown field (want one of: runtime, mode, init, grace_period, env, entrypoint, image, command, args, protocol, ready_timeout, program)",
			`t.yaml:6: load.duration: "3q": invalid duration (want e.g. 6s, 500ms)`,
			`t.yaml:7: load.clients: "many": want a whole number`,
		}},
		// a duration without a unit is ambiguous
		{"bare number duration", "name: t\nobserve:\n  window: 10\n", []string{
			`t.yaml:3: observe.window: "10": invalid duration (want e.g. 6s, 500ms)`,
		}},
		// duplicate keys are caught by the YAML parser
		{"duplicate key", "name: t\nruns: 1\nruns: 2\n", []string{
			`t.yaml:3: mapping key "runs" already defined at [2:1]`,
		}},
		{"empty value", "name: t\nload:\n  job:\n", []string{
			"t.yaml:3: load.job: empty value (give a value or remove the key)",
		}},
		{"list where a mapping belongs", "name: t\ntarget: [a]\n", []string{
			"t.yaml:2: target: want a mapping (key: value)",
		}},
		{"syntax error", "name: t\nload: {clients: 1\n", nil}, // checked below: has a line
		{"empty file", "", []string{"t.yaml: empty scenario file"}},
		// name is required and filesystem-safe
		{"missing name", "runs: 1\n", []string{"t.yaml: name: required"}},
		{"bad name", "name: a/b\n", []string{`t.yaml:1: name: "a/b": want letters, digits, '.', '_' and '-' only`}},
		{"bad claim id", "name: t\nreproduces: [p2]\n", []string{`t.yaml:2: reproduces[0]: "p2": want a published claim id like P2`}},
		// runs 1..100
		{"runs zero", "name: t\nruns: 0\n", []string{`t.yaml:2: runs: "0": must be 1..100`}},
		{"runs too many", "name: t\nruns: 101\n", []string{`t.yaml:2: runs: "101": must be 1..100`}},
		{"mode unknown", "name: t\ntarget: {mode: graceful}\n", []string{`t.yaml:2: target.mode: "graceful": want none, close or full`}},
		// The runtime selects the built-in target: go or node only.
		{"runtime unknown", "name: t\ntarget: {runtime: java}\n", []string{`t.yaml:2: target.runtime: "java": want go or node`}},
		{"reserved env", "name: t\ntarget:\n  env: {MODE: full}\n", []string{`t.yaml:3: target.env.MODE: "full": set by the harness from target.mode (for the built-in target; a target.image may set it)`}},
		{"bad env name", "name: t\ntarget:\n  env: {A-B: x}\n", []string{`t.yaml:3: target.env.A-B: "x": not a valid environment variable name`}},
		{"grace_period not whole seconds", "name: t\ntarget: {grace_period: 2500ms}\n", []string{`t.yaml:2: target.grace_period: "2.5s": must be whole seconds (Docker takes seconds)`}},
		{"negative grace_period", "name: t\ntarget: {grace_period: -1s}\n", []string{`t.yaml:2: target.grace_period: "-1s": must not be negative`}},
		{"ready_timeout too long", "name: t\ntarget: {ready_timeout: 11m}\n", []string{`t.yaml:2: target.ready_timeout: "11m0s": must be 1s..10m0s`}},
		{"ready_timeout too short", "name: t\ntarget: {ready_timeout: 500ms}\n", []string{`t.yaml:2: target.ready_timeout: "500ms": must be 1s..10m0s`}},
		{"replicas zero", "name: t\nreplicas: 0\n", []string{`t.yaml:2: replicas: "0": must be 1..16`}},
		{"shape unknown", "name: t\nload: {shape: burst}\n", []string{`t.yaml:2: load.shape: "burst": want closed or open`}},
		{"negative clients", "name: t\nload: {clients: -1}\n", []string{`t.yaml:2: load.clients: "-1": must be 1..1000`}},
		{"too many clients", "name: t\nload: {clients: 1001}\n", []string{`t.yaml:2: load.clients: "1001": must be 1..1000`}},
		{"open loop without rate", "name: t\nload: {shape: open}\n", []string{`t.yaml:2: load.rate: "0": required (> 0 requests/second) for shape open`}},
		{"rate on a closed loop", "name: t\nload:\n  rate: 50\n", []string{`t.yaml:3: load.rate: "50": only for shape open (a closed loop has no rate)`}},
		{"negative rate", "name: t\nload:\n  shape: open\n  rate: -5\n", []string{`t.yaml:4: load.rate: "-5": must not be negative`}},
		{"zero duration", "name: t\nload: {duration: 0s}\n", []string{`t.yaml:2: load.duration: "0s": must be > 0 and at most 1h`}},
		{"unbounded duration", "name: t\nload: {duration: 2h}\naction: {kind: none}\n", []string{`t.yaml:2: load.duration: "2h0m0s": must be > 0 and at most 1h`}},
		{"max_requests zero", "name: t\nload: {max_requests: 0}\n", []string{`t.yaml:2: load.max_requests: "0": must be 1..10000000`}},
		{"zero request timeout", "name: t\nload: {timeout: 0s}\n", []string{`t.yaml:2: load.timeout: "0s": must be > 0`}},
		// A negative or huge pause after failures is rejected with its value.
		{"fail pause out of range", "name: t\nload: {fail_pause: 2m}\n", []string{`t.yaml:2: load.fail_pause: "2m0s": must be in 0..1m`}},
		// mix: at least one entry, each with a method, a /path and a weight
		{"empty mix", "name: t\nload:\n  mix: []\n", []string{"t.yaml:3: load.mix: want at least one request"}},
		{"mix entry problems", "name: t\nload:\n  mix:\n    - {method: FETCH, path: slow, weight: 0}\n    - {path: /x, body_bytes: -1}\n", []string{
			`t.yaml:4: load.mix[0].method: "FETCH": want one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS`,
			`t.yaml:4: load.mix[0].path: "slow": must start with "/"`,
			`t.yaml:4: load.mix[0].weight: "0": must be >= 1`,
			`t.yaml:5: load.mix[1].body_bytes: "-1": must be 0..1048576`,
		}},
		{"job after the load", "name: t\nload:\n  job: {steps: 3, step_ms: 10, at: 6s}\n", []string{`t.yaml:3: load.job.at: "6s": must be before load.duration (6s)`}},
		{"job without steps", "name: t\nload:\n  job: {step_ms: 10}\n", []string{`t.yaml:3: load.job.steps: "0": must be 1..10000`}},
		// the action must happen while load runs
		{"action after the load", "name: t\nload: {duration: 2s}\naction: {at: 2s}\n", []string{`t.yaml:3: action.at: "2s": must be before load.duration (2s), so the action happens while load runs`}},
		// a default value has no line of its own
		{"action default at vs short load", "name: t\nload: {duration: 2s}\n", []string{`t.yaml: action.at: "3s": must be before load.duration (2s), so the action happens while load runs`}},
		{"negative action.at", "name: t\naction: {at: -1s}\n", []string{`t.yaml:2: action.at: "-1s": must not be negative`}},
		{"kind unknown", "name: t\naction: {kind: restart}\n", []string{`t.yaml:2: action.kind: "restart": want signal, stop, roll, rollout, terminate or none`}},
		{"replica out of range", "name: t\nreplicas: 2\naction: {replica: 2}\n", []string{`t.yaml:3: action.replica: "2": must be 0..1 (replicas is 2)`}},
		{"unknown signal", "name: t\naction: {stop_signal: SIGFOO}\n", []string{`t.yaml:2: action.stop_signal: "SIGFOO": unknown signal (want one of SIGTERM, SIGINT, SIGKILL, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2, SIGWINCH)`}},
		{"signal with kind stop", "name: t\naction: {kind: stop, stop_signal: TERM}\n", []string{`t.yaml:2: action.stop_signal: "SIGTERM": only for kind signal or roll via signal (docker stop sends the image's stop signal)`}},
		{"grace_period with kind signal", "name: t\naction:\n  kind: signal\n  grace_period: 10s\n", []string{`t.yaml:4: action.grace_period: "10s": only for kind stop or roll via stop (a signal has no grace period)`}},
		{"stop grace_period not whole seconds", "name: t\naction: {kind: stop, grace_period: 1500ms}\n", []string{`t.yaml:2: action.grace_period: "1.5s": must be whole seconds (Docker takes seconds)`}},
		// topology, proxy, roll, baseline
		{"unknown topology", "name: t\ntopology: nginx\n", []string{`t.yaml:2: topology: "nginx": want direct or caddy`}},
		{"proxy without caddy", "name: t\nproxy: {try_duration: 5s}\n", []string{`t.yaml:2: proxy: only for topology caddy`}},
		{"proxy problems", "name: t\ntopology: caddy\nproxy:\n  policy: fastest\n  health_uri: readyz\n  health_interval: 0s\n  max_fails: 0\n  try_duration: -1s\n  retry_methods: [GET, FETCH]\n", []string{
			`t.yaml:4: proxy.policy: "fastest": want one of round_robin, random, least_conn, first`,
			`t.yaml:5: proxy.health_uri: "readyz": must start with "/" (or be none)`,
			`t.yaml:6: proxy.health_interval: "0s": must be > 0 and at most 1m`,
			`t.yaml:7: proxy.max_fails: "0": must be 1..1000`,
			`t.yaml:8: proxy.try_duration: "-1s": must be in 0..10m`,
			`t.yaml:9: proxy.retry_methods[1]: "FETCH": want one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS`,
		}},
		{"roll without caddy", "name: t\naction: {kind: roll}\n", []string{`t.yaml:2: action.kind: "roll": roll needs topology caddy (a replica is rolled behind the proxy)`}},
		{"roll problems", "name: t\ntopology: caddy\naction:\n  kind: roll\n  roll: {via: kill, replacement: blue-green}\n", []string{
			`t.yaml:5: action.roll.via: "kill": want signal or stop`,
			`t.yaml:5: action.roll.replacement: "blue-green": want none, start-first or stop-first`,
		}},
		{"roll block with kind signal", "name: t\naction:\n  roll: {replacement: start-first}\n", []string{`t.yaml:3: action.roll: only for kind roll`}},
		{"roll via stop takes no signal", "name: t\ntopology: caddy\naction: {kind: roll, stop_signal: TERM, roll: {via: stop}}\n", []string{`t.yaml:3: action.stop_signal: "SIGTERM": only for kind signal or roll via signal (docker stop sends the image's stop signal)`}},
		{"baseline without action", "name: t\nbaseline: true\naction: {kind: none}\n", []string{`t.yaml:2: baseline: "true": needs an action (the baseline is the same run without one)`}},
		{"baseline with a load axis", "name: t\nbaseline: true\nvariants:\n  load.clients: [1, 2]\n", []string{`t.yaml:4: variants.load.clients: a scenario with baseline: true may not vary load, replicas, topology or proxy (one baseline serves every variant)`}},
		{"window zero", "name: t\nobserve: {window: 0s}\n", []string{`t.yaml:2: observe.window: "0s": must be > 0 and at most 10m`}},
		{"window too long", "name: t\nobserve: {window: 11m}\n", []string{`t.yaml:2: observe.window: "11m0s": must be > 0 and at most 10m`}},
		// variants: keys must name a single value of the spec
		{"variant key unknown", "name: t\nvariants:\n  target.colour: [red]\n", []string{`t.yaml:3: variants.target.colour: unknown field "colour" in target (want one of: runtime, mode, init, grace_period, env, entrypoint, image, command, args, protocol, ready_timeout, program)`}},
		{"variant key is a mapping", "name: t\nvariants:\n  load: [x]\n", []string{`t.yaml:3: variants.load: not a single value (lists and mappings cannot be set or varied)`}},
		{"variant empty value list", "name: t\nvariants:\n  target.mode: []\n", []string{"t.yaml:3: variants.target.mode: empty list of values"}},
		{"variant value not a list", "name: t\nvariants:\n  target.mode: full\n", []string{`t.yaml:3: variants.target.mode: "full": want a list of values, e.g. [none, full]`}},
		{"variant duplicate value", "name: t\nvariants:\n  target.mode: [full, full]\n", []string{`t.yaml:3: variants.target.mode[1]: "full": duplicate value`}},
		{"too many variants", "name: t\nvariants:\n  load.clients: [1, 2, 3, 4, 5, 6, 7, 8, 9]\n  load.max_requests: [1, 2, 3, 4, 5, 6, 7, 8]\n", []string{"t.yaml:2: variants: 72 variants, more than 64"}},
		// a bad variant value points at its line in variants, and names the variant
		{"bad variant value", "name: t\nvariants:\n  target.mode:\n    - full\n    - bogus\n", []string{`t.yaml:5: target.mode: "bogus": want none, close or full (variant mode=bogus)`}},
		{"variant breaks a cross-field rule", "name: t\nvariants:\n  action.at: [1s, 7s]\n", []string{`t.yaml:3: action.at: "7s": must be before load.duration (6s), so the action happens while load runs (variant at=7s)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errLines(t, tt.src)
			want := tt.want
			switch tt.name {
			case "syntax error":
				if len(got) != 1 || !strings.HasPrefix(got[0], "t.yaml:2: ") {
					t.Fatalf("got %q, want one error at t.yaml:2", got)
				}
				return
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestValidationErrorFields checks the error type carries its parts.
func TestValidationErrorFields(t *testing.T) {
	_, err := parse("x.yaml", []byte("name: t\nload:\n  duration: 3q\n"))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v is not a *ValidationError", err)
	}
	want := ValidationError{File: "x.yaml", Line: 3, Field: "load.duration", Value: "3q", Msg: "invalid duration (want e.g. 6s, 500ms)", schema: true}
	if *ve != want {
		t.Errorf("got %+v, want %+v", *ve, want)
	}
}

// TestNormalize checks accepted spellings and defaults.
func TestNormalize(t *testing.T) {
	tests := []struct {
		src, signal string
	}{
		{"name: t\n", "SIGTERM"},                                 // kind signal defaults to SIGTERM
		{"name: t\naction: {stop_signal: TERM}\n", "SIGTERM"},    // SIG prefix added
		{"name: t\naction: {stop_signal: sigint}\n", "SIGINT"},   // case normalised
		{"name: t\naction: {kind: stop}\n", ""},                  // stop sends no signal of ours
		{"name: t\naction: {stop_signal: SIGKILL}\n", "SIGKILL"}, // already canonical
	}
	for _, tt := range tests {
		sc, err := parse("t.yaml", []byte(tt.src))
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if got := sc.Spec.Action.Signal; got != tt.signal {
			t.Errorf("%q: signal %q, want %q", tt.src, got, tt.signal)
		}
	}
}

// TestDefaults checks a minimal file gets every default from Defaults.
func TestDefaults(t *testing.T) {
	sc, err := parse("t.yaml", []byte("name: t\nload:\n  mix: [{path: /x}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Spec
	if s.Runs != 3 || s.Replicas != 1 || s.Target.Mode != ModeFull || s.Load.Shape != ShapeClosed ||
		s.Load.Clients != 20 || s.Load.Duration != Seconds(6) || s.Load.MaxRequests != 100000 ||
		s.Load.Timeout != Seconds(30) || s.Action.Kind != ActionSignal || s.Action.At != Seconds(3) ||
		s.Observe.Window != Seconds(10) || s.Target.StopTimeout != nil || s.Load.Job != nil {
		t.Errorf("defaults not applied: %+v", s)
	}
	if want := (Request{Method: "GET", Path: "/x", Weight: 1}); len(s.Load.Mix) != 1 || s.Load.Mix[0] != want {
		t.Errorf("mix entry %+v, want %+v", s.Load.Mix, want)
	}
	sc, _ = parse("t.yaml", []byte("name: t\n"))
	if want := (Request{Method: "GET", Path: "/slow?ms=300", Weight: 1}); len(sc.Spec.Load.Mix) != 1 || sc.Spec.Load.Mix[0] != want {
		t.Errorf("default mix %+v, want %+v", sc.Spec.Load.Mix, want)
	}
}
