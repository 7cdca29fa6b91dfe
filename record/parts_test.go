package record

import (
	"encoding/json"
	"strings"
	"testing"
)

// keysOf returns the top-level keys of the JSON object b, in order.
func keysOf(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestMetaPartsWhereTheirFieldsWere: every part is written where its
// field was before parts existed, whichever fields around it are empty,
// and reads back to the same bytes.
func TestMetaPartsWhereTheirFieldsWere(t *testing.T) {
	full := Meta{LoadKind: LoadKindJobs, Topology: TopologyCaddy, OverlappedWith: []string{"s"}, Action: (&Action{Kind: ActionTerminate,
		Before: []Step{{Kind: "signal"}}, Deregister: &Deregistration{}}).With(&Termination{GraceS: 3})}.
		With(&ProbeResult{}, &WSTotals{}, &ResourceRun{}, &JobsLine{}, &Jobs{}, &Rollout{})
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	want := "scenario variant run valid setup_ms teardown_ms load_start_ns load_end_ns action replicas load_kind probe ws fingerprint " +
		"topology overlapped_with resources jobs_line jobs rollout"
	if got := strings.Join(keysOf(t, b), " "); got != want {
		t.Errorf("keys:\n got %s\nwant %s", got, want)
	}
	var back Meta
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(back); string(again) != string(b) {
		t.Errorf("round trip:\n%s\n%s", again, b)
	}
	if back.Jobs() == nil || back.Rollout() == nil || back.Action.Termination() == nil || back.Action.Termination().GraceS != 3 {
		t.Errorf("parts read back: %+v", back)
	}
	act, _ := json.Marshal(back.Action)
	if got := strings.Join(keysOf(t, act), " "); !strings.Contains(got, "before termination deregister") {
		t.Errorf("action keys: %s", got)
	}
	// Without the keys they follow, the parts keep their place.
	sparse, _ := json.Marshal(Meta{}.With(&WSTotals{}, &Jobs{}))
	if got := strings.Join(keysOf(t, sparse), " "); !strings.Contains(got, "replicas ws fingerprint") || !strings.HasSuffix(got, "fingerprint jobs") {
		t.Errorf("sparse keys: %s", got)
	}
}

// TestSetPart: a part replaces its kind's, a nil pointer removes it, a
// copy keeps its own, and a type that is no part panics.
func TestSetPart(t *testing.T) {
	a := Meta{}.With(&Jobs{Inserted: 1})
	b := a
	a.SetPart(&Jobs{Inserted: 2})
	a.SetPart((*WSTotals)(nil))
	if a.Jobs().Inserted != 2 || b.Jobs().Inserted != 1 {
		t.Errorf("jobs: %d, copy %d", a.Jobs().Inserted, b.Jobs().Inserted)
	}
	a.SetPart((*Jobs)(nil))
	if a.Jobs() != nil || b.Jobs() == nil {
		t.Errorf("removed: %v, copy %v", a.Jobs(), b.Jobs())
	}
	defer func() {
		if recover() == nil {
			t.Error("a Summary set as a part: no panic")
		}
	}()
	a.SetPart(&Summary{})
}

// TestRegisterPartRefuses: a key or type given twice, or an empty key,
// panics at start.
func TestRegisterPartRefuses(t *testing.T) {
	for name, reg := range map[string]func(){
		"key taken":  func() { registerPart[Summary](metaParts, "jobs", "") },
		"type taken": func() { registerPart[Jobs](metaParts, "jobs2", "") },
		"empty key":  func() { registerPart[Summary](metaParts, "", "") },
		"itself":     func() { registerPart[Summary](metaParts, "loop", "loop") },
		"a circle": func() {
			h := &partHost{name: "T", parts: map[string]partDef{}}
			registerPart[Summary](h, "a", "b")
			registerPart[Start](h, "b", "a")
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered without a panic", name)
				}
			}()
			reg()
		}()
	}
	if len(metaParts.parts) != 7 {
		t.Errorf("%d parts of Meta after the refusals, want 7", len(metaParts.parts))
	}
}
