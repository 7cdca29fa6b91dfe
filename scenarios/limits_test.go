package scenarios

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A scenario file over the limit is refused unread, naming the file, its
// size and the limit; one at the limit is parsed as usual.
func TestLoadRefusesLargeFile(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	// Valid YAML all the way (a long comment), so only the size can fail it.
	body := append([]byte("name: big\n#"), bytes.Repeat([]byte("x"), MaxFileBytes)...)
	if err := os.WriteFile(big, body, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(big)
	for _, want := range []string{big, strconv.Itoa(len(body)) + " bytes", "limit is " + strconv.Itoa(MaxFileBytes)} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load of %d bytes: %v; want an error containing %q", len(body), err, want)
		}
	}
	if _, err := parse(big, body); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("parse of %d bytes: %v", len(body), err)
	}
	ok := filepath.Join(dir, "ok.yaml")
	small := append([]byte("name: ok\n#"), bytes.Repeat([]byte("x"), MaxFileBytes-20)...)
	if err := os.WriteFile(ok, small, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ok); err != nil {
		t.Errorf("Load of %d bytes (under the limit): %v", len(small), err)
	}
}

func TestCheckSets(t *testing.T) {
	long := "load.mix=" + strings.Repeat("x", MaxSetBytes)
	if err := CheckSets([]string{"load.duration=2s", long}); err == nil ||
		!strings.Contains(err.Error(), "--set load.mix") || !strings.Contains(err.Error(), strconv.Itoa(MaxSetBytes)) {
		t.Errorf("CheckSets(long) = %v", err)
	}
	if err := CheckSets([]string{"load.duration=2s"}); err != nil {
		t.Errorf("CheckSets(short) = %v", err)
	}
}

// CheckArgs refuses an --expect (or any repeatable flag's) value over the
// --set limit, naming the flag and the size and quoting only its start.
func TestCheckArgs(t *testing.T) {
	long := strings.Repeat("(", 100000)
	err := CheckArgs("--expect", []string{"failed == 0", long})
	if err == nil {
		t.Fatal("CheckArgs(100000 bytes) = nil")
	}
	for _, want := range []string{"--expect", "100000 bytes", strconv.Itoa(MaxSetBytes), `"` + strings.Repeat("(", ShortChars) + `…"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("CheckArgs: %q lacks %q", err, want)
		}
	}
	if len(err.Error()) > 200 {
		t.Errorf("CheckArgs: %d bytes of error: it echoes the value", len(err.Error()))
	}
	if err := CheckArgs("--expect", []string{strings.Repeat("(", MaxSetBytes)}); err != nil {
		t.Errorf("CheckArgs at the limit: %v", err)
	}
}

// Errors quote long values only in part: Shorten for names and flags, a
// ValidationError's value up to 200 characters, with its size.
func TestLongValuesAreNotEchoed(t *testing.T) {
	if got := Shorten("ééé"); got != "ééé" {
		t.Errorf("Shorten(short) = %q", got)
	}
	if got := Shorten(strings.Repeat("é", ShortChars+1)); got != strings.Repeat("é", ShortChars)+"…" {
		t.Errorf("Shorten(long) = %q", got)
	}
	_, err := parse("big.yaml", []byte("name: x\nload: {duration: "+strings.Repeat("9", 500000)+"}\n"))
	if err == nil || !strings.Contains(err.Error(), "big.yaml:2: load.duration") || !strings.Contains(err.Error(), "(500000 bytes)") || len(err.Error()) > 400 {
		t.Errorf("err = %.400v (%d bytes)", err, len(err.Error()))
	}
	if _, err := Find(strings.Repeat("x", 100000)); err == nil || len(err.Error()) > 2000 {
		t.Errorf("Find(long name): %d bytes of error", len(err.Error()))
	}
}

// limits: defaults when absent or zero, a scenario's own values kept, and
// out-of-range values refused naming the field.
func TestHarnessLimits(t *testing.T) {
	for _, tt := range []struct {
		sets     []string
		mem, pid int
		err      string
	}{
		{nil, DefaultHarnessMemoryMB, DefaultHarnessPIDs, ""},
		{[]string{"limits.memory_mb=4096"}, 4096, DefaultHarnessPIDs, ""},
		{[]string{"limits.pids=100000", "limits.memory_mb=0"}, DefaultHarnessMemoryMB, 100000, ""},
		{[]string{"limits.memory_mb=10"}, 0, 0, "limits.memory_mb"},
		{[]string{"limits.pids=2000000"}, 0, 0, "limits.pids"},
	} {
		sc, err := Find("direct-inflight")
		if err != nil {
			t.Fatal(err)
		}
		vs, err := sc.Expand(tt.sets)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: error %v, want one naming %s", tt.sets, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tt.sets, err)
		}
		l := vs[0].Spec.HarnessLimits()
		if l.MemoryMB != tt.mem || l.PIDs != tt.pid || l.MemoryBytes() != int64(tt.mem)<<20 {
			t.Errorf("%v: limits %+v, want %d MiB and %d pids", tt.sets, l, tt.mem, tt.pid)
		}
	}
}
