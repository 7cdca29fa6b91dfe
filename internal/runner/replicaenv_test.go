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
