package runner

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// Each replica records in events.json the environment its container was
// given (MODE, PORT, INSTANCE and target.env), so the ws metrics that read
// CLOSE_SPREAD_MS, UPGRADES_PER_S and the W6 budget are measured, not
// null.
func TestCollectRecordsReplicaEnv(t *testing.T) {
	f := newFakeEngine(map[string]fakeScript{"replica-0": happyReplica(), "replica-1": replica(nil)})
	x := newFakeRun(t, f, fakeVariant(t, "direct-inflight", 300*time.Millisecond, "replicas=2",
		"target.env.CLOSE_SPREAD_MS=1000", "target.env.PRESTOP_MS=0"))
	ctx := context.Background()
	if err := x.act(ctx, time.Now().Add(-x.spec.Action.At.D())); err != nil {
		t.Fatal(err)
	}
	x.stream.Write([]byte(strings.ReplaceAll(startLine, "$NOW", "5") + "\n" + summaryLine(0) + "\n"))
	if err := x.collect(ctx); err != nil {
		t.Fatalf("collect: %v", err)
	}
	if len(x.meta.Replicas) != 2 {
		t.Fatalf("%d replicas recorded, want 2", len(x.meta.Replicas))
	}
	for i, rep := range x.meta.Replicas {
		var given []string
		for _, c := range f.containers {
			if c.spec.Name == x.replicaName(i) {
				given = c.spec.Env
			}
		}
		if given == nil {
			t.Fatalf("replica %d: no container started", i)
		}
		if want := envMap(given); !maps.Equal(rep.Env, want) {
			t.Errorf("replica %d recorded env %v, want what its container got %v", i, rep.Env, want)
		}
		if rep.Env["CLOSE_SPREAD_MS"] != "1000" || rep.Env["PRESTOP_MS"] != "0" || rep.Env["MODE"] == "" ||
			!strings.HasPrefix(rep.Env["INSTANCE"], replicaAlias(i)+":") {
			t.Errorf("replica %d env %v: want target.env, MODE and its own INSTANCE", i, rep.Env)
		}
	}
}

func TestEnvMap(t *testing.T) {
	got := envMap([]string{"MODE=full", "EMPTY=", "URL=http://a/?x=1", "BARE"})
	want := map[string]string{"MODE": "full", "EMPTY": "", "URL": "http://a/?x=1", "BARE": ""}
	if !maps.Equal(got, want) {
		t.Errorf("envMap = %v, want %v", got, want)
	}
	if keys := slices.Sorted(maps.Keys(envMap(nil))); len(keys) != 0 {
		t.Errorf("envMap(nil) = %v, want empty", keys)
	}
}

// A user's image is measured as it ships: the harness adds none of the
// built-in target's variables (MODE, PORT, INSTANCE, the catalog's
// target.env), only what the user set, and records which of the image's
// own variables that replaced.
func TestUserImageGetsOnlyUserEnv(t *testing.T) {
	tests := []struct {
		name     string
		imageEnv []string
		sets     []string
		wantEnv  []string
		wantOver map[string]string
	}{
		{"nothing set: nothing added", []string{"MODE=prod", "PORT=3000"}, nil, nil, nil},
		{"a user value beside the image's", []string{"PATH=/bin"}, []string{"target.env.LOG=debug"}, []string{"LOG=debug"}, nil},
		{"a user value replacing the image's", []string{"DRAIN_MS=abc", "PATH=/bin"}, []string{"target.env.DRAIN_MS=0"},
			[]string{"DRAIN_MS=0"}, map[string]string{"DRAIN_MS": "abc"}},
		{"the same value is no override", []string{"MODE=prod"}, []string{"target.env.MODE=prod"}, []string{"MODE=prod"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sets := append([]string{"target.image=my/app:1", "target.protocol.paths=/slow"}, tc.sets...)
			v := fakeVariant(t, "direct-inflight", 300*time.Millisecond, sets...)
			f := newFakeEngine(nil)
			f.imageEnv = tc.imageEnv
			x := &run{r: newFakeRunner(t, f), spec: v.Spec, target: targetImage{ref: "my/app:1"}}
			if err := x.readImageEnv(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := x.targetEnv(0); !slices.Equal(got, tc.wantEnv) {
				t.Errorf("env %q, want %q", got, tc.wantEnv)
			}
			if got := envOverrides(x.target.imageEnv, x.spec.Target.Env); !maps.Equal(got, tc.wantOver) {
				t.Errorf("overrides %v, want %v", got, tc.wantOver)
			}
		})
	}
}
