package loadgen

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"

	"github.com/shutdownlab/shutdownlab/record"
)

// Stage is the step of a request at which an error happened.
type Stage int

const (
	// StageDial is establishing a new connection: nothing was sent.
	StageDial Stage = iota
	// StageWrite is writing the request.
	StageWrite
	// StageRead is reading the response status line and headers.
	StageRead
	// StageBody is reading the response body.
	StageBody
)

// errStopping marks a request cut off because the run's drain bound expired.
var errStopping = errors.New("agent stopping")

// Classify maps the outcome of one request to its class. It is pure.
//
//   - err == nil: a complete response; 2xx is ok, any other status is
//     http_error.
//   - any error at StageDial (ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, no
//     such host, a connect that timed out) is refused: no connection was
//     made, so the request provably never reached the server. The error
//     text tells the causes apart. The one exception is a dial cut off
//     because the agent is stopping: that is timeout (the agent gave up).
//   - a deadline (os.ErrDeadlineExceeded, context.DeadlineExceeded, any
//     net.Error with Timeout()) after the dial is timeout; so is a request
//     cut off because the agent is stopping.
//   - ECONNRESET, EPIPE, ECONNABORTED after the dial are reset.
//   - io.EOF, io.ErrUnexpectedEOF and anything else after the dial (a
//     connection closed under us, a malformed response) are eof: the request
//     was at least partly written and its outcome is unknown.
func Classify(stage Stage, err error, status int) record.Class {
	if err == nil {
		if status >= 200 && status <= 299 {
			return record.ClassOK
		}
		return record.ClassHTTPError
	}
	if stage == StageDial {
		if errors.Is(err, errStopping) {
			return record.ClassTimeout
		}
		return record.ClassRefused
	}
	if isTimeout(err) {
		return record.ClassTimeout
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) {
		return record.ClassReset
	}
	return record.ClassEOF
}

func isTimeout(err error) bool {
	if errors.Is(err, errStopping) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
