package scenarios

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// expandLabels returns the labels of sc's variants under sets, failing the test
// on an error.
func expandLabels(t *testing.T, sc *Scenario, sets []string) []string {
	t.Helper()
	vs, err := sc.Expand(sets)
	if err != nil {
		t.Fatalf("Expand(%q): %v", sets, err)
	}
	var out []string
	for _, v := range vs {
		out = append(out, v.Label)
	}
	return out
}

func catalogScenario(t *testing.T, name string) *Scenario {
	t.Helper()
	sc, err := Find(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestImageCollapsesBuiltinAxes: with an image given by --set, variant axes
// that only configure the built-in target collapse into one variant (and a
// note names each), while axes that change how Docker runs any image stay.
func TestImageCollapsesBuiltinAxes(t *testing.T) {
	img := "target.image=my/app:1"
	tests := []struct {
		scenario  string
		sets      []string
		want      []string // variant labels
		collapsed []string // axes the notes name
	}{
		{"direct-inflight", nil, []string{"mode=none", "mode=close", "mode=full"}, nil},
		{"direct-inflight", []string{img, "target.protocol.paths=/slow"}, []string{"default"}, []string{"target.mode"}},
		{"direct-inflight", []string{img, "target.protocol.paths=/slow", "target.mode=none"}, []string{"mode=none"}, nil},
		{"deadline", []string{img, "target.protocol.paths=/slow"}, []string{"default"}, []string{"target.env.DRAIN_MS"}},
		{"p6-inflight-socket", []string{img, "target.protocol.paths=/slow"}, []string{"default"}, []string{"target.runtime", "target.env.KEEPALIVE_MS"}},
		{"pid1-signal", []string{img, "target.protocol.paths=/slow"}, []string{"init=false", "init=true"}, nil},
		{"stop-timeout-job", []string{img, "target.protocol.paths=/slow,/job"}, []string{"timeout=10s", "timeout=20s"}, nil},
		// the file's runtime: node is dropped (it names a built-in target),
		// entrypoint and init apply to any image
		{"signal-delivery", []string{img, "target.protocol.paths=/slow"},
			[]string{"entrypoint=exec,init=false", "entrypoint=exec,init=true", "entrypoint=shell,init=false", "entrypoint=shell,init=true"}, nil},
		{"caddy-post", []string{img, "target.protocol.paths=/write"}, []string{"default", "baseline"}, []string{"target.mode"}},
		{"roll-behind-caddy", []string{img, "target.protocol.paths=/slow"}, []string{"default"}, []string{"target.runtime", "target.mode"}},
	}
	for _, tc := range tests {
		t.Run(tc.scenario+" "+strings.Join(tc.sets, " "), func(t *testing.T) {
			sc := catalogScenario(t, tc.scenario)
			if got := expandLabels(t, sc, tc.sets); !slices.Equal(got, tc.want) {
				t.Errorf("labels %q, want %q", got, tc.want)
			}
			var notes []string // the axis notes; the dropped target.env has its own test
			for _, n := range sc.ImageNotes(tc.sets) {
				if !strings.Contains(n, ": target.env ") {
					notes = append(notes, n)
				}
			}
			if len(notes) != len(tc.collapsed) {
				t.Fatalf("notes %q, want one per axis %q", notes, tc.collapsed)
			}
			for i, key := range tc.collapsed {
				if !strings.Contains(notes[i], "variant axis "+key+" [") || !strings.Contains(notes[i], "my/app:1") {
					t.Errorf("note %q does not name axis %s and the image", notes[i], key)
				}
			}
		})
	}
}

// TestImageInFileKeepsAxes: a file that names its image itself was written
// for it; its axes are its author's and stay, MODE included.
func TestImageInFileKeepsAxes(t *testing.T) {
	src := "name: t\ntarget:\n  image: my/app:1\n  protocol: {paths: [/slow]}\nvariants:\n  target.mode: [none, full]\n"
	sc, err := parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := expandLabels(t, sc, []string{"target.image=my/app:2"}); !slices.Equal(got, []string{"mode=none", "mode=full"}) {
		t.Errorf("labels %q", got)
	}
	if n := sc.ImageNotes([]string{"target.image=my/app:2"}); n != nil {
		t.Errorf("notes %q, want none", n)
	}
}

// TestImageDeclaredPaths: a user image declares its ready path and what
// target.protocol.paths says (from the file or a comma-separated --set),
// nothing by default; load elsewhere is refused naming path and remedy.
func TestImageDeclaredPaths(t *testing.T) {
	tests := []struct {
		name     string
		scenario string
		sets     []string
		want     string // error; "" = valid
	}{
		{"built-in target: paths not checked", "caddy-post", nil, ""},
		{"caddy-post on an image without /write", "caddy-post", []string{"target.image=my/app:1"},
			`scenarios/catalog/caddy-post.yaml:39: load.mix[0].path: "/write?ms=300": image my/app:1 does not declare path "/write" (declared: ready path /readyz); if it serves /write: --set target.protocol.paths=/write (or target.protocol.paths in a scenario file)`},
		{"caddy-post with /write declared", "caddy-post", []string{"target.image=my/app:1", "target.protocol.paths=/write"}, ""},
		{"declared paths, another used", "direct-inflight", []string{"target.image=my/app:1", "target.protocol.paths=/a, /b"},
			`image my/app:1 does not declare path "/slow" (declared: ready path /readyz, target.protocol.paths [/a, /b]); if it serves /slow: --set target.protocol.paths=/a,/b,/slow`},
		{"the ready path is declared", "direct-inflight", []string{"target.image=my/app:1", "target.protocol.ready_path=/slow"}, ""},
		{"probe path", "p5-idle-socket", []string{"target.image=my/app:1"}, `load.probe.kind: "/slow": image my/app:1 does not declare path "/slow"`},
		{"a bad list item names --set", "direct-inflight", []string{"target.image=my/app:1", "target.protocol.paths=slow"},
			`--set: target.protocol.paths[0]: "slow": must start with "/"`},
		{"lists stay out of variants", "direct-inflight", []string{"load.mix=/x"}, "lists and mappings cannot be set or varied"},
		{"retry methods as a list", "caddy-retry", []string{"proxy.retry_methods=GET,POST"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := catalogScenario(t, tc.scenario).Expand(tc.sets)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestKindOverrideDropsFileValues: changing action.kind by --set or by a
// variant drops the file's values that belonged to its own kind; an
// override that gives both stays a contradiction.
func TestKindOverrideDropsFileValues(t *testing.T) {
	stopFile := "name: t\nload: {mix: [{path: /slow}]}\naction:\n  kind: stop\n  grace_period: 5s\n"
	signalFile := "name: t\nload: {mix: [{path: /slow}]}\naction:\n  kind: signal\n  stop_signal: SIGQUIT\n"
	tests := []struct {
		name    string
		src     string // "" = the catalog scenario below
		catalog string
		sets    []string
		want    string // error, "" = valid
		check   func(t *testing.T, a Action)
	}{
		{"stop alone on a signal file", "", "direct-inflight", []string{"action.kind=stop"}, "", func(t *testing.T, a Action) {
			if a.Kind != ActionStop || a.Signal != "" || a.Timeout != nil {
				t.Errorf("action %+v, want stop without signal or timeout", a)
			}
		}},
		{"stop with a grace period", "", "direct-inflight", []string{"action.kind=stop", "action.grace_period=4s"}, "", func(t *testing.T, a Action) {
			if a.Timeout == nil || *a.Timeout != Seconds(4) {
				t.Errorf("timeout %v, want 4s", a.Timeout)
			}
		}},
		{"stop and a signal given together", "", "direct-inflight", []string{"action.kind=stop", "action.stop_signal=SIGTERM"},
			`--set: action.stop_signal: "SIGTERM": only for kind signal`, nil},
		{"none on a signal file", "", "direct-inflight", []string{"action.kind=none"}, "", nil},
		{"signal on a stop file drops its timeout", stopFile, "", []string{"action.kind=signal"}, "", func(t *testing.T, a Action) {
			if a.Signal != "SIGTERM" || a.Timeout != nil {
				t.Errorf("action %+v, want SIGTERM without timeout", a)
			}
		}},
		{"same kind keeps the file's signal", signalFile, "", []string{"action.kind=signal"}, "", func(t *testing.T, a Action) {
			if a.Signal != "SIGQUIT" {
				t.Errorf("signal %s, want the file's SIGQUIT", a.Signal)
			}
		}},
		{"stop on a roll file drops signal and roll", "", "roll-behind-caddy", []string{"action.kind=stop"}, "", nil},
		{"a file contradicting itself is still refused", "name: t\naction:\n  kind: stop\n  stop_signal: SIGTERM\n", "", nil,
			`t.yaml:4: action.stop_signal: "SIGTERM": only for kind signal`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sc *Scenario
			var err error
			if tc.src != "" {
				sc, err = parse("t.yaml", []byte(tc.src))
			} else {
				sc = catalogScenario(t, tc.catalog)
			}
			var vs []Variant
			if err == nil {
				vs, err = sc.Expand(tc.sets)
			}
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %v, want it to contain %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.check != nil {
				tc.check(t, vs[len(vs)-1].Spec.Action)
			}
		})
	}
}

// TestKindAxis: a variant axis action.kind: [signal, stop] on a file that
// says which signal is valid: the stop variant drops the signal.
func TestKindAxis(t *testing.T) {
	src := "name: t\ntarget:\n  grace_period: 2s\naction:\n  kind: signal\n  stop_signal: SIGQUIT\nvariants:\n  action.kind: [signal, stop]\n"
	sc, err := parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand(nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := vs[0].Spec.Action; a.Kind != ActionSignal || a.Signal != "SIGQUIT" {
		t.Errorf("signal variant %+v", a)
	}
	if a := vs[1].Spec.Action; a.Kind != ActionStop || a.Signal != "" {
		t.Errorf("stop variant %+v", a)
	}
}

// TestImageDropsBuiltinEnv: an image given by --set to a catalog scenario
// written for the built-in target runs with its own environment: the
// file's target.env (DRAIN_MS, PRESTOP_MS) is not given to it, a note
// says so, and a --set target.env.NAME puts one back.
func TestImageDropsBuiltinEnv(t *testing.T) {
	sc := catalogScenario(t, "caddy-post")
	tests := []struct {
		sets     []string
		wantEnv  map[string]string
		wantNote string // "" for none
	}{
		{nil, map[string]string{"DRAIN_MS": "10000", "PRESTOP_MS": "1000"}, ""},
		{[]string{"target.image=my/app:1", "target.protocol.paths=/write"}, map[string]string{},
			"target.env DRAIN_MS=10000, PRESTOP_MS=1000 is written for the built-in target and not given to image my/app:1"},
		{[]string{"target.image=my/app:1", "target.protocol.paths=/write", "target.env.DRAIN_MS=3000"}, map[string]string{"DRAIN_MS": "3000"},
			"target.env PRESTOP_MS=1000 is written for the built-in target"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.sets, " "), func(t *testing.T) {
			vs, err := sc.Expand(tc.sets)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				if got := v.Spec.Target.Env; len(got) != len(tc.wantEnv) || !maps.Equal(got, tc.wantEnv) && len(got) > 0 {
					t.Errorf("%s: target.env %v, want %v", v.Label, got, tc.wantEnv)
				}
			}
			notes := strings.Join(sc.ImageNotes(tc.sets), "\n")
			if tc.wantNote == "" && strings.Contains(notes, ": target.env ") || !strings.Contains(notes, tc.wantNote) {
				t.Errorf("notes %q, want one containing %q", notes, tc.wantNote)
			}
		})
	}
}
