package scenarios

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestActionBlockTable: a kind's block says its kind, the kind is one
// of ActionKinds, and its block is refused under every other kind.
func TestActionBlockTable(t *testing.T) {
	var full Action
	for k, d := range actionBlocks {
		b := d.newBlock()
		if b.actionKind() != k {
			t.Errorf("action.kind %s: its block %T says kind %s", k, b, b.actionKind())
		}
		if _, ok := actionKindOf(k); !ok {
			t.Errorf("action.%s: kind %s is not in actionKinds", d.key, k)
		}
		full.SetBlock(b)
	}
	for _, k := range ActionKinds() {
		s := &Spec{Action: full}
		s.Action.Kind = k
		var got []string
		validateActionBlocks(s, func(path, value, msg string) {
			if strings.HasPrefix(msg, "only for kind") {
				got = append(got, path+": "+msg)
			}
		})
		want := 0
		for o, d := range actionBlocks {
			if o == k {
				continue
			}
			want++
			if !strings.Contains(strings.Join(got, "\n"), "action."+d.key+": only for kind "+string(o)) {
				t.Errorf("action.kind %s: action.%s not refused (got %q)", k, d.key, got)
			}
		}
		if len(got) != want {
			t.Errorf("action.kind %s: %d refusals, want %d: %q", k, len(got), want, got)
		}
	}
}

// TestRegisterActionBlockRefuses: a kind or key given twice, an empty
// one, or a block without its constructor or check panics at start.
func TestRegisterActionBlockRefuses(t *testing.T) {
	newT := func() ActionBlock { return new(Terminate) }
	check := func(*Spec, FailFunc) {}
	for name, reg := range map[string]func(){
		"kind taken": func() {
			registerActionBlock(ActionTerminate, actionBlockDef{key: "t2", newBlock: newT, validate: check})
		},
		"empty kind":     func() { registerActionBlock("", actionBlockDef{key: "t3", newBlock: newT, validate: check}) },
		"empty key":      func() { registerActionBlock("t4", actionBlockDef{newBlock: newT, validate: check}) },
		"key taken":      func() { registerActionBlock("t5", actionBlockDef{key: "terminate", newBlock: newT, validate: check}) },
		"no constructor": func() { registerActionBlock("t6", actionBlockDef{key: "t6", validate: check}) },
		"no check":       func() { registerActionBlock("t7", actionBlockDef{key: "t7", newBlock: newT}) },
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
	if len(actionBlocks) != 2 {
		t.Errorf("the refused registrations left %d blocks, want 2", len(actionBlocks))
	}
}

// TestActionBlockJSON: a block is written after action.roll, where its
// field was, and read back; the fields after it keep their place.
func TestActionBlockJSON(t *testing.T) {
	a := Action{Kind: ActionTerminate, Roll: Roll{Via: ActionSignal}, Before: []Step{{Kind: StepSignal, Signal: "SIGUSR1"}}}
	a.SetBlock(&Terminate{Grace: Seconds(5)})
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	roll, term, before := strings.Index(s, `"roll":`), strings.Index(s, `"terminate":{"grace":"5s"`), strings.Index(s, `"before":`)
	if roll < 0 || term < roll || before < term {
		t.Errorf("marshalled: %s", s)
	}
	var back Action
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Terminate() == nil || back.Terminate().Grace != Seconds(5) || back.Rollout() != nil || len(back.Before) != 1 {
		t.Errorf("read back: %+v", back)
	}
	if again, _ := json.Marshal(back); string(again) != s {
		t.Errorf("round trip:\n%s\n%s", again, s)
	}
	var none Action
	if b, _ := json.Marshal(none); strings.Contains(string(b), "terminate") || strings.Contains(string(b), "rollout") {
		t.Errorf("an action without blocks: %s", b)
	}
}
