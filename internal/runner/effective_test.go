package runner

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// effective.json is written before the first run starts (a harness killed
// mid-run leaves nothing else naming the scenario and its values), with
// the scenario's name, the --set overrides and each variant as run.
func TestEffectiveWrittenBeforeFirstRun(t *testing.T) {
	f := newFakeEngine(nil)
	f.fail["CreateNetwork"] = errors.New("injected: no network") // every run fails at once
	r := newFakeRunner(t, f)
	r.opts.Sets = []string{"runs=1", "load.clients=5"}
	var mu sync.Mutex
	var atFirstCall *resultdir.Effective
	f.hook = func(string) {
		mu.Lock()
		defer mu.Unlock()
		if atFirstCall != nil {
			return
		}
		dirs, _ := filepath.Glob(filepath.Join(r.opts.Out, "*"))
		e := resultdir.Effective{}
		if len(dirs) == 1 {
			e, _ = resultdir.ReadEffective(dirs[0])
		}
		atFirstCall = &e
	}
	sc, err := scenarios.Find("direct-inflight")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, sc)
	if err != nil || oc.Runs != 3 || oc.Invalid != 3 {
		t.Fatalf("outcome %+v, err %v; want 3 invalid runs", oc, err)
	}
	if atFirstCall == nil || atFirstCall.Scenario != "direct-inflight" {
		t.Fatalf("at the first engine call, effective.json was %+v; want it written", atFirstCall)
	}
	e, err := resultdir.ReadEffective(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if e.Scenario != "direct-inflight" || !slices.Equal(e.Sets, r.opts.Sets) || len(e.Variants) != 3 {
		t.Fatalf("effective.json = %+v", e)
	}
	for i, label := range []string{"mode=none", "mode=close", "mode=full"} {
		var sp scenarios.Spec
		if err := json.Unmarshal(e.Variants[i].Spec, &sp); err != nil {
			t.Fatal(err)
		}
		if e.Variants[i].Label != label || sp.Load.Clients != 5 || sp.Runs != 1 || string(sp.Target.Mode) != label[len("mode="):] {
			t.Errorf("variant %d: %s, clients %d, runs %d, mode %s; want %s with --set applied", i, e.Variants[i].Label, sp.Load.Clients, sp.Runs, sp.Target.Mode, label)
		}
	}
}
