package scenarios

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRenamedKeys: each renamed key's old name, in a file, decodes onto
// the same field as its new name (the same effective JSON), with one
// Deprecation naming the file, the line, the old key and the new one.
func TestRenamedKeys(t *testing.T) {
	stop := "name: t\naction:\n  kind: stop\n"
	term := "name: t\nobserve: {window: 20s}\naction:\n  kind: terminate\n  terminate:\n"
	roll := "name: t\nplatform: swarm\naction:\n  kind: rollout\n  rollout:\n"
	for _, tt := range []struct {
		name, old, new string
		line           int
		deps           []string
	}{
		{"target.stop_timeout", "name: t\ntarget:\n  stop_timeout: 7s\n", "name: t\ntarget:\n  grace_period: 7s\n", 3,
			[]string{"t.yaml:3: target.stop_timeout is deprecated: use target.grace_period"}},
		{"action.signal", "name: t\naction:\n  kind: signal\n  signal: quit\n", "name: t\naction:\n  kind: signal\n  stop_signal: quit\n", 4,
			[]string{"t.yaml:4: action.signal is deprecated: use action.stop_signal"}},
		{"action.timeout", stop + "  timeout: 5s\n", stop + "  grace_period: 5s\n", 4,
			[]string{"t.yaml:4: action.timeout is deprecated: use action.grace_period"}},
		{"action.timeout, flow", "name: t\naction: {kind: stop, timeout: 5s}\n", "name: t\naction: {kind: stop, grace_period: 5s}\n", 2,
			[]string{"t.yaml:2: action.timeout is deprecated: use action.grace_period"}},
		{"roll via stop", "name: t\ntopology: caddy\naction: {kind: roll, roll: {via: stop}, timeout: 3s}\n",
			"name: t\ntopology: caddy\naction: {kind: roll, roll: {via: stop}, grace_period: 3s}\n", 3,
			[]string{"t.yaml:3: action.timeout is deprecated: use action.grace_period"}},
		{"action.terminate.grace", term + "    grace: 12s\n", term + "    grace_period: 12s\n", 6,
			[]string{"t.yaml:6: action.terminate.grace is deprecated: use action.terminate.grace_period"}},
		{"action.rollout.stop_grace_period", roll + "    stop_grace_period: 4s\n", roll + "    grace_period: 4s\n", 6,
			[]string{"t.yaml:6: action.rollout.stop_grace_period is deprecated: use action.rollout.grace_period"}},
		{"action.rollout.healthcheck.probe", roll + "    healthcheck:\n      probe: liveness\n", roll + "    healthcheck:\n      check: liveness\n", 7,
			[]string{"t.yaml:7: action.rollout.healthcheck.probe is deprecated: use action.rollout.healthcheck.check"}},
		{"action.rollout.healthcheck.probe, flow", roll + "    healthcheck: {probe: none, retries: 2}\n", roll + "    healthcheck: {check: none, retries: 2}\n", 6,
			[]string{"t.yaml:6: action.rollout.healthcheck.probe is deprecated: use action.rollout.healthcheck.check"}},
		{"two at once", "name: t\ntarget: {stop_timeout: 9s}\naction: {kind: stop, timeout: 5s}\n",
			"name: t\ntarget: {grace_period: 9s}\naction: {kind: stop, grace_period: 5s}\n", 2,
			[]string{"t.yaml:2: target.stop_timeout is deprecated: use target.grace_period",
				"t.yaml:3: action.timeout is deprecated: use action.grace_period"}},
		{"variant key", stop + "variants:\n  action.timeout: [5s, 10s]\n", stop + "variants:\n  action.grace_period: [5s, 10s]\n", 5,
			[]string{"t.yaml:5: variants.action.timeout is deprecated: use variants.action.grace_period"}},
		{"variant key healthcheck.probe", roll + "    grace_period: 4s\nvariants:\n  action.rollout.healthcheck.probe: [readiness, liveness]\n",
			roll + "    grace_period: 4s\nvariants:\n  action.rollout.healthcheck.check: [readiness, liveness]\n", 8,
			[]string{"t.yaml:8: variants.action.rollout.healthcheck.probe is deprecated: use variants.action.rollout.healthcheck.check"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old, err := Parse("t.yaml", []byte(tt.old))
			if err != nil {
				t.Fatal(err)
			}
			cur, err := Parse("t.yaml", []byte(tt.new))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range old.Deprecations(nil) {
				got = append(got, d.String())
				if d.File != "t.yaml" || d.Line == 0 {
					t.Errorf("deprecation without its place: %+v", d)
				}
			}
			if !slices.Equal(got, tt.deps) {
				t.Errorf("deprecations\n%q\nwant\n%q", got, tt.deps)
			}
			if d := cur.Deprecations(nil); len(d) != 0 {
				t.Errorf("the new name is deprecated: %v", d)
			}
			if d := old.Deprecations(nil); len(d) > 0 && d[0].Line != tt.line {
				t.Errorf("line %d, want %d", d[0].Line, tt.line)
			}
			if a, b := variantsJSON(t, old, nil), variantsJSON(t, cur, nil); a != b {
				t.Errorf("old and new names decode differently:\n%s\n%s", a, b)
			}
		})
	}
}

// variantsJSON is the labels, params and effective JSON of sc's variants.
func variantsJSON(t *testing.T, sc *Scenario, sets []string) string {
	t.Helper()
	vs, err := sc.Expand(sets)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(vs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRenamedKeyGivenTwice: a file, a variant matrix or a set of --set
// values giving both names of one field is an error naming both.
func TestRenamedKeyGivenTwice(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		sets       []string
		want       string
	}{
		{"file", "name: t\naction:\n  kind: stop\n  timeout: 5s\n  grace_period: 6s\n", nil,
			"t.yaml:4: action.timeout: action.grace_period (line 5) sets the same field: give only action.grace_period (action.timeout is deprecated)"},
		{"file, new first", "name: t\naction: {kind: signal, stop_signal: TERM, signal: INT}\n", nil,
			"t.yaml:2: action.signal: action.stop_signal (line 2) sets the same field: give only action.stop_signal (action.signal is deprecated)"},
		{"terminate block", "name: t\nobserve: {window: 20s}\naction:\n  kind: terminate\n  terminate: {grace_period: 5s, grace: 5s}\n", nil,
			"t.yaml:5: action.terminate.grace: action.terminate.grace_period (line 5) sets the same field"},
		{"variants", "name: t\naction: {kind: stop}\nvariants:\n  action.timeout: [5s]\n  action.grace_period: [6s]\n", nil,
			"t.yaml:5: variants.action.grace_period: variants.action.timeout names the same field: give only variants.action.grace_period (action.timeout is deprecated)"},
		{"healthcheck block", "name: t\nplatform: swarm\naction:\n  kind: rollout\n  rollout: {healthcheck: {check: none, probe: none}}\n", nil,
			"t.yaml:5: action.rollout.healthcheck.probe: action.rollout.healthcheck.check (line 5) sets the same field: give only action.rollout.healthcheck.check (action.rollout.healthcheck.probe is deprecated)"},
		{"--set", "name: t\naction: {kind: stop}\n", []string{"action.timeout=5s", "action.grace_period=6s"},
			`--set: action.grace_period: "6s": action.timeout names the same field: give only action.grace_period (action.timeout is deprecated)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("t.yaml", []byte(tt.file))
			if err == nil {
				_, err = sc.Expand(tt.sets)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestRenamedKeySet: --set takes a renamed key's old name, with a
// Deprecation naming --set, and gives the value the new name gives; a
// --set of either name narrows the variant axis of either name.
func TestRenamedKeySet(t *testing.T) {
	sc, err := Parse("t.yaml", []byte("name: t\naction: {kind: stop}\nvariants:\n  action.grace_period: [5s, 10s]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		old, new string
		dep      string
	}{
		{"action.timeout=7s", "action.grace_period=7s", "--set: action.timeout is deprecated: use action.grace_period"},
		{"target.stop_timeout=3s", "target.grace_period=3s", "--set: target.stop_timeout is deprecated: use target.grace_period"},
	} {
		setRenamed(t, sc, tt.old, tt.new, tt.dep)
	}
	roll, err := Parse("t.yaml", []byte("name: t\nplatform: swarm\naction: {kind: rollout}\n"))
	if err != nil {
		t.Fatal(err)
	}
	setRenamed(t, roll, "action.rollout.healthcheck.probe=liveness", "action.rollout.healthcheck.check=liveness",
		"--set: action.rollout.healthcheck.probe is deprecated: use action.rollout.healthcheck.check")
	if got := RenameSets([]string{"action.rollout.healthcheck.probe=none"}); got[0] != "action.rollout.healthcheck.check=none" {
		t.Errorf("RenameSets: %q", got)
	}
	vs, err := sc.Expand([]string{"action.timeout=7s"})
	if err != nil || len(vs) != 1 || vs[0].Label != "timeout=7s" || vs[0].Spec.Action.Timeout.String() != "7s" {
		t.Errorf("narrowed by the old name: %+v, %v", vs, err)
	}
}

// setRenamed checks that --set old (given twice) gives one Deprecation,
// dep, and the variants --set new gives; --set new gives none.
func setRenamed(t *testing.T, sc *Scenario, old, new, dep string) {
	t.Helper()
	sets := []string{old, old} // given twice: one Deprecation
	if deps := sc.Deprecations(sets); len(deps) != 1 || deps[0].String() != dep {
		t.Errorf("%s: deprecations %v, want [%s]", old, deps, dep)
	}
	if a, b := variantsJSON(t, sc, sets), variantsJSON(t, sc, []string{new}); a != b {
		t.Errorf("--set %s and %s differ:\n%s\n%s", old, new, a, b)
	}
	if d := sc.Deprecations([]string{new}); len(d) != 0 {
		t.Errorf("--set %s: %v", new, d)
	}
}

// TestRecordedNames: what results record keeps the old names whichever
// name the file uses — the variant's keys, params and label — so result
// directories, gate and reproduce match across the rename.
func TestRecordedNames(t *testing.T) {
	for _, file := range []string{
		"name: t\naction: {kind: stop}\nvariants:\n  action.grace_period: [5s, 10s]\n",
		"name: t\naction: {kind: stop}\nvariants:\n  action.timeout: [5s, 10s]\n",
	} {
		sc, err := Parse("t.yaml", []byte(file))
		if err != nil {
			t.Fatal(err)
		}
		vs, err := sc.Expand(nil)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Axes[0].Key != "action.timeout" || vs[0].Label != "timeout=5s" || vs[0].Slug != "timeout-5s" ||
			vs[1].Params["action.timeout"] != "10s" || !slices.Equal(vs[1].Keys, []string{"action.timeout"}) {
			t.Errorf("%s: axis %q, variants %+v", file, sc.Axes[0].Key, vs)
		}
	}
	// The health check: label probe=..., effective.json's "probe".
	sc, err := Parse("t.yaml", []byte("name: t\nplatform: swarm\naction: {kind: rollout}\nvariants:\n  action.rollout.healthcheck.check: [liveness]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if js := variantsJSON(t, sc, nil); !strings.Contains(js, `"Label":"probe=liveness"`) || !strings.Contains(js, `"healthcheck":{"probe":"liveness"`) {
		t.Errorf("healthcheck.check recorded as %s", js)
	}
	for old, cur := range RenamedKeys() {
		if recordedPath(cur) != old || recordedPath(old) != old {
			t.Errorf("%s is recorded as %s, %s as %s", cur, recordedPath(cur), old, recordedPath(old))
		}
		if _, err := resolve(cur); err != nil {
			t.Errorf("%s: %v", cur, err)
		}
	}
}

// TestShippedScenariosUseCurrentNames: no scenario shutdownlab ships —
// the catalog, the examples, the test scenarios (here and the runner's)
// and the reference in docs/scenarios.md — uses a deprecated key.
func TestShippedScenariosUseCurrentNames(t *testing.T) {
	cat, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	all := slices.Clone(cat)
	var files []string
	for _, root := range []string{"../examples", "testdata", "../internal/runner/testdata"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "apiVersion:") {
			continue // a Kubernetes manifest, not a scenario
		}
		sc, err := Parse(f, data)
		if err != nil {
			continue // a scenario that must not load (testdata/bad.yaml)
		}
		all = append(all, sc)
	}
	if len(all) < len(cat)+2 {
		t.Fatalf("%d scenarios, want the catalog's %d and the examples", len(all), len(cat))
	}
	if doc, err := os.ReadFile("../docs/scenarios.md"); err == nil {
		body := string(doc)[strings.Index(string(doc), "```yaml\nname:")+len("```yaml\n"):]
		sc, err := Parse("docs/scenarios.md", []byte(body[:strings.Index(body, "```")]))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, sc)
	}
	for _, sc := range all {
		for _, d := range sc.Deprecations(nil) {
			t.Errorf("%s", d)
		}
	}
}
