package envflag

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantN   int
		wantErr string
	}{
		// Default when neither is given.
		{"default", nil, nil, 20, ""},
		// The environment fills a flag.
		{"env", map[string]string{"AG_MAX_REQUESTS": "7"}, nil, 7, ""},
		// The command line wins over the environment.
		{"flag wins", map[string]string{"AG_MAX_REQUESTS": "7"}, []string{"-max-requests", "9"}, 9, ""},
		// A bad environment value names the variable, the value and the flag.
		{"bad env", map[string]string{"AG_MAX_REQUESTS": "many"}, nil, 0, `invalid AG_MAX_REQUESTS="many" (flag -max-requests)`},
		// A positional argument is refused.
		{"positional", nil, []string{"extra"}, 0, `unexpected argument "extra"`},
		// -h is reported as ErrHelp.
		{"help", nil, []string{"-h"}, 0, "help requested"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			n := fs.Int("max-requests", 20, "")
			err := Parse(fs, "AG", tt.args, func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			case tt.wantErr == "" && *n != tt.wantN:
				t.Errorf("max-requests = %d, want %d", *n, tt.wantN)
			}
			if tt.name == "help" && !errors.Is(err, ErrHelp) {
				t.Errorf("want ErrHelp, got %v", err)
			}
		})
	}
}
