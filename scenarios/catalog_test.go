package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
)

// TestCatalog checks every shipped scenario loads, validates and expands,
// and documents what it reproduces.
func TestCatalog(t *testing.T) {
	all, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		variants   string // labels
		reproduces string
	}{
		"pid1-signal":        {"init=false init=true", "P1"},
		"direct-inflight":    {"mode=none mode=close mode=full", "P2 P3"},
		"deadline":           {"DRAIN_MS=0 DRAIN_MS=5000", "P8"},
		"stop-timeout-job":   {"timeout=10s timeout=20s", "P9"},
		"roll-behind-caddy":  {"runtime=node,mode=close runtime=node,mode=full runtime=go,mode=close runtime=go,mode=full", "P4"},
		"caddy-no-retry":     {"mode=none mode=close mode=full", "P10"},
		"caddy-retry":        {"mode=none mode=close mode=full", "P11"},
		"caddy-post":         {"mode=none mode=close mode=full baseline", "P12"},
		"hammer-sweep":       {"default", "P7"},
		"p5-idle-socket":     {"runtime=node runtime=go", "P5"},
		"p6-inflight-socket": {"runtime=node,KEEPALIVE_MS=5000 runtime=node,KEEPALIVE_MS=15000 runtime=go,KEEPALIVE_MS=5000 runtime=go,KEEPALIVE_MS=15000", "P6"},
		"signal-delivery":    {"entrypoint=exec,init=false entrypoint=exec,init=true entrypoint=shell,init=false entrypoint=shell,init=true", ""},
		"cluster-blind":      {"duration=5s duration=14s", "C1"},
		"cluster-gated":      {"default", "C2"},
		"cluster-teardown":   {"TEARDOWN_MS=0 TEARDOWN_MS=4000", "C3"},
		"cluster-proxy":      {"PROXY_IMPL=pipe,path=/proxy?ms=60000 PROXY_IMPL=pipe,path=/proxy?ms=300 PROXY_IMPL=pipeline,path=/proxy?ms=60000 PROXY_IMPL=pipeline,path=/proxy?ms=300", "C4"},
		"slow-client":        {"kind=slow_headers,mode=close kind=slow_headers,mode=full kind=slow_body,mode=close kind=slow_body,mode=full", ""},
		"ws-retire":          {"runtime=go,mode=none runtime=go,mode=close runtime=go,mode=full runtime=node,mode=none runtime=node,mode=close runtime=node,mode=full", "W2 W3"},
		"ws-storm":           {"kind=immediate,double_schedule=false kind=immediate,double_schedule=true kind=full-jitter,double_schedule=false kind=full-jitter,double_schedule=true", "W4"},
		"ws-admission":       {"UPGRADES_WHILE_DRAINING=refuse UPGRADES_WHILE_DRAINING=accept", "W1"},
		"ws-replay":          {"EVENTS_REPLAY=1000 EVENTS_REPLAY=0", "W5"},
		"ws-budget":          {"runtime=go,timeout=5s runtime=go,timeout=10s runtime=node,timeout=5s runtime=node,timeout=10s", "W6"},
		"job-modes":          {"mode=none mode=close mode=full", "J2"},
		"job-retry":          {"idempotent=false idempotent=true", "J1"},
		"job-budget":         {"DRAIN_MS=10000 DRAIN_MS=7000", "J3"},
		"job-pool-order":     {"POOL_CLOSE=last POOL_CLOSE=first", "J4"},
		"job-second-signal":  {"REPEAT_SIGNAL=ignore REPEAT_SIGNAL=restart", "J5"},
		"swarm-watchdog":     {"probe=readiness probe=liveness", ""},
		"rollout-inflight":   {"mode=none mode=full", ""},
		"swarm-rollout":      {"topology=caddy,mode=none,order=start-first topology=caddy,mode=none,order=stop-first topology=caddy,mode=full,order=start-first topology=caddy,mode=full,order=stop-first topology=direct,mode=none,order=start-first topology=direct,mode=none,order=stop-first topology=direct,mode=full,order=start-first topology=direct,mode=full,order=stop-first", ""},
		"k8s-race":           {"deregister_after=0s,PRESTOP_MS=0 deregister_after=0s,PRESTOP_MS=1000 deregister_after=0s,PRESTOP_MS=2500 deregister_after=500ms,PRESTOP_MS=0 deregister_after=500ms,PRESTOP_MS=1000 deregister_after=500ms,PRESTOP_MS=2500 deregister_after=1000ms,PRESTOP_MS=0 deregister_after=1000ms,PRESTOP_MS=1000 deregister_after=1000ms,PRESTOP_MS=2500 deregister_after=2000ms,PRESTOP_MS=0 deregister_after=2000ms,PRESTOP_MS=1000 deregister_after=2000ms,PRESTOP_MS=2500", ""},
	}
	if len(all) != len(want) {
		t.Errorf("%d catalog scenarios, want %d", len(all), len(want))
	}
	for _, sc := range all {
		w, ok := want[sc.Name()]
		if !ok {
			t.Errorf("unexpected catalog scenario %s", sc.Name())
			continue
		}
		if sc.File != "scenarios/catalog/"+sc.Name()+".yaml" {
			t.Errorf("%s: file %s", sc.Name(), sc.File)
		}
		if sc.Spec.Description == "" || strings.Contains(sc.Spec.Description, "\n") {
			t.Errorf("%s: description %q: want one paragraph", sc.Name(), sc.Spec.Description)
		}
		if got := strings.Join(sc.Spec.Reproduces, " "); got != w.reproduces {
			t.Errorf("%s: reproduces %s, want %s", sc.Name(), got, w.reproduces)
		}
		vs, err := sc.Expand(nil)
		if err != nil {
			t.Errorf("%s: %v", sc.Name(), err)
			continue
		}
		if got := labels(vs); got != w.variants {
			t.Errorf("%s: variants %s, want %s", sc.Name(), got, w.variants)
		}
		for _, v := range vs {
			s := v.Spec
			// keep catalog runs modest and bounded
			if s.Load.Clients > 20 || s.Load.Duration.D() > 70*time.Second || s.Runs > 3 {
				t.Errorf("%s/%s: too heavy: %+v", sc.Name(), v.Label, s.Load)
			}
		}
		if _, err := sc.Expand([]string{"runs=1", "load.duration=70s"}); err != nil {
			t.Errorf("%s: --set runs=1: %v", sc.Name(), err)
		}
		if !bytes.HasPrefix(sc.Raw(), []byte("#")) {
			t.Errorf("%s: raw text should start with its comment", sc.Name())
		}
	}
}

// TestCatalogSpecs pins the published setups the catalog encodes.
func TestCatalogSpecs(t *testing.T) {
	get := func(name string) []Variant {
		sc, err := Find(name)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := sc.Expand(nil)
		if err != nil {
			t.Fatal(err)
		}
		return vs
	}
	p1 := get("pid1-signal")[0].Spec
	if p1.Target.Mode != ModeNone || p1.Target.Init || p1.Action.Signal != "SIGTERM" || p1.Action.At != Seconds(3) || p1.Observe.Window != Seconds(3) {
		t.Errorf("pid1-signal: %+v", p1)
	}
	for _, v := range get("direct-inflight") {
		s := v.Spec
		if !s.Target.Init || s.Load.Clients != 20 || s.Load.Mix[0].Path != "/slow?ms=300" || s.Action.At != Seconds(3) || s.Target.Env["DRAIN_MS"] != "0" {
			t.Errorf("direct-inflight %s: %+v", v.Label, s)
		}
	}
	for _, v := range get("deadline") {
		s := v.Spec
		if s.Load.Clients != 1 || s.Action.At != Seconds(1) || s.Observe.Window != Seconds(60) || s.Action.At+s.Observe.Window > s.Load.Duration {
			t.Errorf("deadline %s: %+v", v.Label, s)
		}
	}
	for _, v := range get("stop-timeout-job") {
		s := v.Spec
		if s.Action.Kind != ActionStop || s.Action.Timeout == nil || s.Load.Job == nil || s.Load.Job.Steps != 30 || s.Load.Job.StepMS != 500 || s.Target.Env["DRAIN_MS"] != "60000" {
			t.Errorf("stop-timeout-job %s: %+v", v.Label, s)
		}
	}
}

func TestFind(t *testing.T) {
	sc, err := Find("testdata/custom.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name() != "my-service-gate" || sc.File != "testdata/custom.yaml" || len(sc.Spec.Load.Mix) != 2 || sc.Spec.Load.Rate != 50 {
		t.Errorf("custom: %+v", sc.Spec)
	}
	raw, _ := os.ReadFile("testdata/custom.yaml")
	if !bytes.Equal(sc.Raw(), raw) {
		t.Error("Raw differs from the file")
	}
	_, err = Find("nope")
	all, cerr := Catalog()
	if cerr != nil {
		t.Fatal(cerr)
	}
	names := make([]string, len(all))
	for i, sc := range all {
		names[i] = sc.Name()
	}
	if want := `unknown scenario "nope" (available: ` + strings.Join(names, ", ") + `; or give a path to a .yaml file)`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	// the shape of the file is checked first: bad.yaml's clients: 0 is
	// reported once its duration parses
	_, err = Find("testdata/bad.yaml")
	var ves ValidationErrors
	if !errors.As(err, &ves) || len(ves) != 1 || ves[0].Line != 3 || ves[0].File != "testdata/bad.yaml" {
		t.Errorf("bad.yaml: %v", err)
	}
	if _, err := Find("testdata/missing.yaml"); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestDurationRoundTrip(t *testing.T) {
	tests := []struct {
		in, out string
	}{
		{"6s", "6s"},
		{"500ms", "500ms"},
		{"1m30s", "1m30s"},
		{"90s", "1m30s"}, // canonical form
		{"0s", "0s"},
	}
	for _, tt := range tests {
		var d Duration
		if err := yaml.Unmarshal([]byte(tt.in), &d); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		b, err := yaml.Marshal(d)
		if err != nil || strings.TrimSpace(string(b)) != tt.out {
			t.Errorf("yaml %s -> %q (%v), want %s", tt.in, b, err, tt.out)
		}
		j, err := json.Marshal(d)
		if err != nil || string(j) != `"`+tt.out+`"` {
			t.Errorf("json %s -> %s (%v)", tt.in, j, err)
		}
		var back Duration
		if err := json.Unmarshal(j, &back); err != nil || back != d {
			t.Errorf("json back %s -> %v (%v)", j, back, err)
		}
	}
	for _, bad := range []string{"10", "3q", "", "s"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", bad)
		}
	}
	if !Seconds(2).WholeSeconds() || Duration(1500*time.Millisecond).WholeSeconds() {
		t.Error("WholeSeconds")
	}
}

// TestSpecJSON checks a resolved spec survives JSON (the runner saves it).
func TestSpecJSON(t *testing.T) {
	sc, err := Find("stop-timeout-job")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(sc.Spec)
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if !bytes.Equal(b, b2) {
		t.Errorf("round trip:\n%s\n%s", b, b2)
	}
}

// TestDocReference checks the reference example in docs/scenarios.md is a
// valid scenario, so the user documentation cannot drift from the code.
func TestDocReference(t *testing.T) {
	b, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Skip("docs not present:", err)
	}
	doc := string(b)
	start := strings.Index(doc, "```yaml\nname:")
	if start < 0 {
		t.Fatal("no reference example in docs/scenarios.md")
	}
	body := doc[start+len("```yaml\n"):]
	body = body[:strings.Index(body, "```")]
	sc, err := parse("docs/scenarios.md", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if vs, err := sc.Expand(nil); err != nil || len(vs) != 3 {
		t.Errorf("%d variants, %v", len(vs), err)
	}
}
