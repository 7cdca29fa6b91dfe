// Package runplan is what `shutdownlab run` and `shutdownlab check` share
// between their flags and the runner: a checked plan of scenarios (each
// loaded, expanded and paired with its expectations, its images and
// outputs checked before anything starts), its execution with the same
// runner, reports and expectation verdicts, and the reading back of a
// saved result's setup. Bad input is a UsageError, which the command
// line turns into exit 64.
package runplan

import (
	"errors"
	"fmt"
)

// ExitUsage is the exit code of a UsageError: bad usage or bad input,
// refused before anything started (EX_USAGE of sysexits.h).
const ExitUsage = 64

// UsageError is bad command-line usage or bad input found before anything
// started: exit ExitUsage, the message on stderr with a pointer to -h.
type UsageError struct {
	// Msg is the message; Err the wrapped error, if any.
	Msg string
	Err error
}

// Error is the message.
func (e *UsageError) Error() string { return e.Msg }

// Unwrap is the wrapped error.
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a usage error with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// BadInput marks err (a scenario that does not load, an expectation that
// does not check, ...) as a usage error; nil stays nil.
func BadInput(err error) error {
	if err == nil {
		return nil
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return err
	}
	return &UsageError{Msg: err.Error(), Err: err}
}
