package scenarios

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// Input limits. A scenario is a few kilobytes of YAML; anything near these
// sizes is a mistake (a wrong file, a generated blob), and parsing it would
// cost seconds and gigabytes before any error could be shown.
const (
	// MaxFileBytes bounds a scenario file (1 MiB).
	MaxFileBytes = 1 << 20
	// MaxSetBytes bounds one --set argument, key and value (64 KiB).
	MaxSetBytes = 64 << 10
)

// readLimited reads a scenario file of at most MaxFileBytes; a larger one
// is an error naming the file, its size and the limit, and is not read.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxFileBytes {
		return nil, tooLarge(path, fi.Size())
	}
	// Not a regular file (a pipe, /dev/stdin) or growing: read one byte
	// past the limit to tell.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("scenario: %s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, tooLarge(path, -1)
	}
	return data, nil
}

func tooLarge(path string, size int64) error {
	s := "more than that"
	if size >= 0 {
		s = fmt.Sprintf("%d bytes", size)
	}
	return fmt.Errorf("scenario: %s: file is too large: %s, the limit is %d bytes (1 MiB); a scenario file is a few KB of YAML", path, s, MaxFileBytes)
}

// CheckSets refuses a --set argument longer than MaxSetBytes, naming its
// key, its size and the limit.
func CheckSets(sets []string) error {
	for _, s := range sets {
		if len(s) > MaxSetBytes {
			key, _, _ := strings.Cut(s, "=")
			return fmt.Errorf("--set %s: %d bytes, the limit is %d bytes (64 KiB)", Shorten(key), len(s), MaxSetBytes)
		}
	}
	return nil
}

// CheckArgs refuses a value of the repeatable flag (as "--expect") longer
// than MaxSetBytes, the limit of --set: the error names the flag, the
// value's size and the limit, and quotes only the value's start.
func CheckArgs(flag string, values []string) error {
	for _, v := range values {
		if len(v) > MaxSetBytes {
			return fmt.Errorf("%s %q: %d bytes, the limit is %d bytes (64 KiB, as for --set)", flag, Shorten(v), len(v), MaxSetBytes)
		}
	}
	return nil
}

// ShortChars is how much of a long input an error message quotes.
const ShortChars = 60

// Shorten returns s for an error message: s itself when it has at most
// ShortChars characters, else its first ShortChars characters and "…", so
// that an error never echoes a huge input back.
func Shorten(s string) string { return shorten(s, ShortChars) }

// shorten is Shorten with a limit of n characters.
func shorten(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}
