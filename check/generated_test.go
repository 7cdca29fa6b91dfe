package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// generatedCase is one scenario check or check --manifest generates, and
// the --set values it is expanded with.
type generatedCase struct {
	name string
	file string
	sc   func(t *testing.T) *scenarios.Scenario
	sets [][]string
}

// generatedView is what a golden file of testdata/generated holds of a
// generated scenario: its base spec and axes, and its variants' specs for
// each list of --set values.
type generatedView struct {
	Spec     scenarios.Spec
	Axes     []scenarios.Axis
	Variants map[string][]generatedVariant
}

type generatedVariant struct {
	Label string
	Spec  scenarios.Spec
}

// viewOf expands sc with each of sets.
func viewOf(t *testing.T, sc *scenarios.Scenario, sets [][]string) generatedView {
	t.Helper()
	v := generatedView{Spec: sc.Spec, Axes: sc.Axes, Variants: map[string][]generatedVariant{}}
	for _, s := range append([][]string{nil}, sets...) {
		vs, err := sc.Expand(s)
		if err != nil {
			t.Fatalf("expand %q: %v", s, err)
		}
		for _, x := range vs {
			v.Variants[strings.Join(s, " ")] = append(v.Variants[strings.Join(s, " ")], generatedVariant{Label: x.Label, Spec: x.Spec})
		}
	}
	return v
}

// checkOptsCases are the option sets of check IMAGE the golden files
// cover.
func checkOptsCases() map[string]checkOpts {
	return map[string]checkOpts{
		"query-quit": {image: "my/app:ci", readyPath: "/healthz", path: "/api?x=1", port: 3000, signal: "SIGQUIT", stopSignal: "SIGQUIT", graceS: 7, runs: 2},
		"plain":      {image: "nginx:1.27", readyPath: "/readyz", path: "/", port: 8080, signal: "SIGTERM", stopSignal: "SIGPWR", graceS: 10, runs: 1},
		"program": {image: "reg.example:5000/team/app@sha256:abc", readyPath: "/ready", path: "/slow?ms=300&x=\"y\"", port: 80, signal: "SIGINT", stopSignal: "SIGINT",
			graceS: 30, runs: 3, command: []string{"/bin/sh", "-c", "exec app --flag"}, args: []string{"--x", `a "q" 'b'`, ""}, clients: 5},
	}
}

// manifestOptsOf is what check --manifest makes of file, as its flags'
// defaults and an image without STOPSIGNAL or EXPOSE give it.
func manifestOptsOf(t *testing.T, file string, opts kube.Options) manifestOpts {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Named as when the golden files were written, from cmd/shutdownlab.
	pod, err := kube.Read("../"+file, data, opts)
	if err != nil {
		t.Fatal(err)
	}
	delays, stated := DefaultPropagation, DefaultDelay
	ready := "/readyz"
	if pod.Readiness != nil {
		ready = pod.Readiness.Path
	}
	return manifestOpts{pod: pod, image: pod.Image, imageStopSignal: "SIGTERM", port: manifestPort(0, pod, nil),
		readyPath: ready, path: "/", runs: 1, delays: delays, stated: stated}
}

// generatedCases are the scenarios the golden files cover: check's, its
// signal search's and capacity variant's for each option set, and check
// --manifest's for each example manifest (and the test deployment with
// each kind of hook, its pre-stop search, and on a cluster).
func generatedCases(t *testing.T) []generatedCase {
	must := func(sc *scenarios.Scenario, err error) *scenarios.Scenario {
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	var out []generatedCase
	checkSets := [][]string{{"load.duration=4s", "action.at=2s", "target.init=true"}, {"action.kind=stop"}, {"target.env.A=1", "runs=1"}}
	for name, o := range checkOptsCases() {
		out = append(out,
			generatedCase{name: "check-" + name, sc: func(*testing.T) *scenarios.Scenario { return must(checkScenario(o)) }, sets: checkSets},
			generatedCase{name: "search-" + name, sc: func(*testing.T) *scenarios.Scenario {
				return must(searchScenario(o, []string{"SIGQUIT", "SIGINT", "SIGWINCH"}))
			}, sets: [][]string{{"target.init=true"}}},
			generatedCase{name: "capacity-" + name, sc: func(*testing.T) *scenarios.Scenario {
				return must(shortScenario(o, "capacity-c4", "capacity variant", 4, []string{"SIGTERM"}))
			}})
	}
	manifestSets := [][]string{{"load.duration=30s", "target.env.X=1"}, {"runs=2"}}
	files, err := filepath.Glob("../examples/kubernetes/manifests/*.yaml")
	if err != nil || len(files) < 4 {
		t.Fatalf("example manifests: %v, %v", files, err)
	}
	for _, file := range files {
		out = append(out, generatedCase{name: "manifest-" + strings.TrimSuffix(filepath.Base(file), ".yaml"), sets: manifestSets,
			sc: func(t *testing.T) *scenarios.Scenario {
				return must(manifestScenario(manifestOptsOf(t, file, kube.Options{})))
			}})
	}
	deployment := func(t *testing.T) manifestOpts {
		o := manifestOptsOf(t, "../internal/kube/testdata/deployment.yaml", kube.Options{Container: "app", Env: map[string]string{"DB_PASSWORD": "yes: no # \"x\""}})
		o.imageStopSignal, o.path, o.runs = "SIGINT", "/slow?ms=20", 2
		o.delays, o.stated = []time.Duration{0, 1500 * time.Millisecond, 5 * time.Second}, 1500*time.Millisecond
		return o
	}
	hooks := map[string]*kube.Hook{"sleep0": {Kind: kube.HookSleep}, "exec": {Kind: kube.HookExec, Command: []string{"sh", "-c", "sleep 5 && echo \"done\""}},
		"httpget": {Kind: kube.HookHTTPGet, Path: "/drain?now=1", Port: 9090}}
	for name, h := range hooks {
		out = append(out, generatedCase{name: "deployment-" + name, sets: manifestSets, sc: func(t *testing.T) *scenarios.Scenario {
			o := deployment(t)
			o.preStop = h
			return must(manifestScenario(o))
		}})
	}
	out = append(out, generatedCase{name: "deployment-prestop-search", sets: manifestSets, sc: func(t *testing.T) *scenarios.Scenario {
		o := deployment(t)
		o.delays, o.sleeps = []time.Duration{o.stated}, []time.Duration{2 * time.Second, 3 * time.Second, 4 * time.Second}
		o.preStop = &kube.Hook{Kind: kube.HookSleep, Sleep: 2 * time.Second}
		return must(manifestScenario(o))
	}})
	for name, sleeps := range map[string][]time.Duration{"cluster": nil, "cluster-search": {time.Second, 2 * time.Second}} {
		for fname, f := range map[string]ManifestOptions{"": {File: "../../internal/kube/testdata/deployment.yaml", Container: "app"},
			"-image": {File: "../../internal/kube/testdata/deployment.yaml", Workload: "Deployment/web", Container: "app", Image: "example/web:ci"}} {
			out = append(out, generatedCase{name: "deployment-" + name + fname, sets: [][]string{{"runs=2"}}, sc: func(t *testing.T) *scenarios.Scenario {
				return must(clusterScenario(deployment(t), f, sleeps))
			}})
		}
	}
	return out
}

// TestGeneratedScenarios: each scenario check and check --manifest
// generate is the one testdata/generated holds, as a base spec, axes and
// expanded variants (with --set values too). The golden files were
// written by the generators that printed YAML text, before they built
// scenarios.Spec values; SHUTDOWNLAB_UPDATE_GENERATED=1 rewrites them.
// None uses a deprecated key.
func TestGeneratedScenarios(t *testing.T) {
	update := os.Getenv("SHUTDOWNLAB_UPDATE_GENERATED") == "1"
	for _, c := range generatedCases(t) {
		t.Run(c.name, func(t *testing.T) {
			sc := c.sc(t)
			for _, d := range sc.Deprecations(nil) {
				t.Errorf("the generated scenario uses a deprecated key: %s", d)
			}
			got, err := json.MarshalIndent(viewOf(t, sc, c.sets), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "generated", c.name+".json")
			if update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(want) != string(got)+"\n" {
				t.Errorf("%s differs from the generated scenario:\n%s", path, got)
			}
		})
	}
}
