package scenarios

import (
	"fmt"
	"time"
)

// Duration is a time.Duration written in scenario files as a Go duration
// string ("6s", "500ms", "1m30s"). It marshals back to the same form, as
// text, YAML and JSON.
type Duration time.Duration

// Seconds returns a Duration of n whole seconds.
func Seconds(n int) Duration { return Duration(time.Duration(n) * time.Second) }

// ParseDuration parses a Go duration string; bare numbers are rejected, so
// "10" (seconds? milliseconds?) never passes silently.
func ParseDuration(s string) (Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want e.g. 6s, 500ms)", s)
	}
	return Duration(d), nil
}

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats d as time.Duration does ("6s", "1m30s", "500ms").
func (d Duration) String() string { return time.Duration(d).String() }

// WholeSeconds reports whether d is a whole number of seconds, as Docker's
// StopTimeout and `docker stop -t` require.
func (d Duration) WholeSeconds() bool { return time.Duration(d)%time.Second == 0 }

// MarshalText implements encoding.TextMarshaler (used by YAML and JSON).
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
