package scenarios

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLoadKindTable: a kind's block says its kind, and every other kind's
// block is refused under it, naming the block and its kind.
func TestLoadKindTable(t *testing.T) {
	var full LoadSpec
	for k, d := range loadKinds {
		if d.Block == "" {
			continue
		}
		b := d.NewBlock()
		if b.LoadKind() != k {
			t.Errorf("load.kind %s: its block %T says kind %s", k, b, b.LoadKind())
		}
		full.SetBlock(b)
	}
	for k := range loadKinds {
		s := &Spec{Load: full}
		s.Load.Kind = k
		var got []string
		validateLoadKind(s, newLocator("test.yaml"), func(path, value, msg string) {
			if strings.HasPrefix(msg, "only for load.kind") {
				got = append(got, path+": "+msg)
			}
		})
		want := 0
		for o, d := range loadKinds {
			if o != k && d.Block != "" {
				want++
				if !strings.Contains(strings.Join(got, "\n"), "load."+d.Block+": only for load.kind "+string(o)) {
					t.Errorf("load.kind %s: load.%s not refused (got %q)", k, d.Block, got)
				}
			}
		}
		if len(got) != want {
			t.Errorf("load.kind %s: %d refusals, want %d: %q", k, len(got), want, got)
		}
	}
}

// TestRegisterLoadKindRefuses: a kind or a block key given twice, an
// empty kind, or a block key without its constructor panics at start.
func TestRegisterLoadKindRefuses(t *testing.T) {
	newWS := func() LoadBlock { return new(WSLoad) }
	for name, reg := range map[string]func(){
		"kind taken":      func() { RegisterLoadKind(LoadWS, LoadKindDef{}) },
		"empty kind":      func() { RegisterLoadKind("", LoadKindDef{}) },
		"block key taken": func() { RegisterLoadKind("ws2", LoadKindDef{Block: "ws", NewBlock: newWS}) },
		"key, no block":   func() { RegisterLoadKind("ws3", LoadKindDef{Block: "ws3"}) },
		"block, no key":   func() { RegisterLoadKind("ws4", LoadKindDef{NewBlock: newWS}) },
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
	if len(loadKinds) != 5 {
		t.Errorf("the refused registrations left %d kinds, want 5", len(loadKinds))
	}
}

// TestSetBlockCopiesOnWrite: a copy of a load keeps its block when the
// original's is replaced or removed, as with a pointer field.
func TestSetBlockCopiesOnWrite(t *testing.T) {
	var a LoadSpec
	a.SetBlock(&WSLoad{Clients: 3})
	b := a
	a.SetBlock(&WSLoad{Clients: 4})
	a.SetBlock(&JobsLoad{Count: 1})
	if b.WS().Clients != 3 || b.Jobs() != nil {
		t.Errorf("the copy's blocks changed: ws %+v, jobs %+v", b.WS(), b.Jobs())
	}
	a.SetBlock((*WSLoad)(nil))
	if a.WS() != nil || a.Jobs() == nil || b.WS() == nil {
		t.Errorf("removing ws: a.ws %v a.jobs %v b.ws %v", a.WS(), a.Jobs(), b.WS())
	}
}

// TestLoadBlockJSON: a block is written as the key load.KEY after the
// load's fields, as the field it once was, and read back.
func TestLoadBlockJSON(t *testing.T) {
	l := LoadSpec{Shape: ShapeClosed, Clients: 2, Kind: LoadJobs}
	l.SetBlock(&JobsLoad{Count: 4, Steps: 2})
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.HasPrefix(s, `{"shape":"closed","clients":2,`) || !strings.Contains(s, `"kind":"jobs","jobs":{"count":4,`) || !strings.HasSuffix(s, "}}") {
		t.Errorf("marshalled: %s", s)
	}
	var back LoadSpec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Kind != LoadJobs || back.Jobs() == nil || back.Jobs().Count != 4 || back.WS() != nil {
		t.Errorf("read back: %+v, jobs %+v", back, back.Jobs())
	}
	if again, _ := json.Marshal(back); string(again) != s {
		t.Errorf("round trip:\n%s\n%s", again, s)
	}
	if err := json.Unmarshal([]byte(`{"kind":"ws","ws":{"clients":"many"}}`), &back); err == nil || !strings.Contains(err.Error(), "load.ws") {
		t.Errorf("a bad block: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"kind":"agent","ws":null}`), &back); err != nil || back.WS() != nil {
		t.Errorf("a null block: %v, ws %v", err, back.WS())
	}
}
