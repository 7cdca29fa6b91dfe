package report

import "testing"

func TestMarkdownCell(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"mode=full", "mode=full"},
		{"a|b", `a\|b`},
		{"line one\nline two", "line one line two"},
		{"x |\n| y", `x \| \| y`},
	} {
		if got := MarkdownCell(tt.in); got != tt.want {
			t.Errorf("MarkdownCell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
