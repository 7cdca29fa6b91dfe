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
