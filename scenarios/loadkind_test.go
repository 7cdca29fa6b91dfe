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

// otherBlock is the settings block of a kind none registers ("other"),
// for the tests of the blocks that need a block type of their own (a
// capability's block type lives in its package, which these tests cannot
// import).
type otherBlock struct{ N int }

// LoadKind says the block is kind other's (LoadBlock).
func (*otherBlock) LoadKind() LoadKind { return "other" }

// otherOf returns the load's other block, nil without one.
func otherOf(l LoadSpec) *otherBlock { return loadBlock[*otherBlock](l, "other") }

// TestRegisterLoadKindRefuses: a kind or a block key given twice, an
// empty kind, or a block key without its constructor panics at start.
func TestRegisterLoadKindRefuses(t *testing.T) {
	newOther := func() LoadBlock { return new(otherBlock) }
	for name, reg := range map[string]func(){
		"kind taken":      func() { RegisterLoadKind(LoadAgent, LoadKindDef{}) },
		"empty kind":      func() { RegisterLoadKind("", LoadKindDef{}) },
		"block key taken": func() { RegisterLoadKind("ws2", LoadKindDef{Block: "ws", NewBlock: newOther}) },
		"key, no block":   func() { RegisterLoadKind("ws3", LoadKindDef{Block: "ws3"}) },
		"block, no key":   func() { RegisterLoadKind("ws4", LoadKindDef{NewBlock: newOther}) },
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
	a.SetBlock(&otherBlock{N: 3})
	b := a
	a.SetBlock(&otherBlock{N: 4})
	a.SetBlock(&secondBlock{})
	if otherOf(b).N != 3 || b.Block(secondKind) != nil {
		t.Errorf("the copy's blocks changed: other %+v, second %+v", otherOf(b), b.Block(secondKind))
	}
	a.SetBlock((*otherBlock)(nil))
	if otherOf(a) != nil || a.Block(secondKind) == nil || otherOf(b) == nil {
		t.Errorf("removing other: a.other %v a.second %v b.other %v", otherOf(a), a.Block(secondKind), otherOf(b))
	}
}

// TestLoadBlockJSON: a block is written as the key load.KEY after the
// load's fields, as the field it once was, and read back.
func TestLoadBlockJSON(t *testing.T) {
	var l LoadSpec // the jobs kind, registered by its capability
	if err := json.Unmarshal([]byte(`{"shape":"closed","clients":2,"kind":"jobs","jobs":{"count":4,"steps":2}}`), &l); err != nil {
		t.Fatal(err)
	}
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
	if back.Kind != "jobs" || back.Block("jobs") == nil || back.Block("ws") != nil {
		t.Errorf("read back: %+v, jobs %+v", back, back.Block("jobs"))
	}
	if again, _ := json.Marshal(back); string(again) != s {
		t.Errorf("round trip:\n%s\n%s", again, s)
	}
	if err := json.Unmarshal([]byte(`{"kind":"ws","ws":{"clients":"many"}}`), &back); err == nil || !strings.Contains(err.Error(), "load.ws") {
		t.Errorf("a bad block: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"kind":"agent","ws":null}`), &back); err != nil || back.Block("ws") != nil {
		t.Errorf("a null block: %v, ws %v", err, back.Block("ws"))
	}
}

// secondKind is a second kind of this test's own, unregistered, with its
// block secondBlock.
const secondKind LoadKind = "second"

type secondBlock struct{}

func (*secondBlock) LoadKind() LoadKind { return secondKind }
