package record

import "testing"

func TestClassKnownFailed(t *testing.T) {
	tests := []struct {
		c             Class
		known, failed bool
	}{
		{ClassOK, true, false},
		{ClassNotSent, true, false},
		{ClassAborted, true, false},
		{ClassHTTPError, true, true},
		{ClassRefused, true, true},
		{ClassReset, true, true},
		{ClassEOF, true, true},
		{ClassTimeout, true, true},
		// Unknown classes are never silently "not failed".
		{"", false, true},
		{"bogus", false, true},
		{"OK", false, true},
	}
	for _, tt := range tests {
		if got := tt.c.Known(); got != tt.known {
			t.Errorf("Class(%q).Known() = %v, want %v", tt.c, got, tt.known)
		}
		if got := tt.c.Failed(); got != tt.failed {
			t.Errorf("Class(%q).Failed() = %v, want %v", tt.c, got, tt.failed)
		}
	}
	for _, c := range Classes {
		if !c.Known() {
			t.Errorf("Classes lists %q, which is not Known", c)
		}
	}
}
