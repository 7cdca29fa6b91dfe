package scenarios

import (
	"strings"
	"testing"
)

// Explicit keys ("? key") are ordinary keys, and an empty key is named in
// the error with its line (both found by FuzzParse: the error had neither).
func TestExplicitAndEmptyKeys(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"explicit unknown key", "? 0", `t.yaml:1: 0: unknown field`},
		{"explicit known key", "name: x\n? load\n: {clients: 0}\n", `t.yaml:3: load.clients: "0": must be 1..1000`},
		{"empty key", "\"\": 1\nname: x\n", `t.yaml:1: "": unknown field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("t.yaml", []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
