package shutdown

import (
	"fmt"
	"math"
)

// FormatMs prints milliseconds for a person: rounded to 1 ms at 100 ms and
// above, to 0.1 ms below. It is the one rule for milliseconds: report's
// FormatNumber prints its KindMs values with it, and SignedMs too.
func FormatMs(x float64) string {
	if math.Abs(x) >= 100 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}

// SignedMs prints ms after t₀ as "+94.1" or "-3.0" (FormatMs with a sign).
func SignedMs(ms float64) string {
	s := FormatMs(ms)
	if ms >= 0 {
		s = "+" + s
	}
	return s
}
