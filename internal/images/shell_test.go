package images

import "testing"

func TestShellCommand(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"/app"}, "/app; exit $?"},
		{[]string{"/usr/bin/node", "/app/server.js"}, "/usr/bin/node /app/server.js; exit $?"},
		{[]string{"sh", "-c", "echo 'hi' there"}, `sh -c 'echo '\''hi'\'' there'; exit $?`},
		{[]string{""}, "''; exit $?"},
	}
	for _, tt := range tests {
		if got := ShellCommand(tt.argv); got != tt.want {
			t.Errorf("ShellCommand(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}
