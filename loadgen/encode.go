package loadgen

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/shutdownlab/shutdownlab/record"
)

// Encoder receives every line of a run: one Start before the first request,
// then one Request per accounted request (from many goroutines at once, so
// implementations must be safe for concurrent use), then one Summary. The
// *record values are only valid during the call.
type Encoder interface {
	// EncodeStart writes the start line.
	EncodeStart(*record.Start) error
	// EncodeRequest writes one request record.
	EncodeRequest(*record.Request) error
	// EncodeSummary writes the summary line.
	EncodeSummary(*record.Summary) error
}

// Flusher is implemented by encoders that buffer; Run calls Flush
// periodically during the run and once after the summary.
type Flusher interface {
	// Flush writes any buffered lines.
	Flush() error
}

// JSONEncoder writes one JSON object per line, buffered; it is safe for
// concurrent use. Request lines are produced by a hand-rolled appender that
// yields exactly what encoding/json.Marshal yields for record.Request.
type JSONEncoder struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// NewJSONEncoder returns a JSONEncoder writing to w through a 64 KiB buffer.
// Call Flush (Run does) before relying on the output.
func NewJSONEncoder(w io.Writer) *JSONEncoder {
	return &JSONEncoder{w: bufio.NewWriterSize(w, 64<<10)}
}

// EncodeStart implements Encoder.
func (e *JSONEncoder) EncodeStart(s *record.Start) error { return e.encodeStd(s) }

// EncodeSummary implements Encoder.
func (e *JSONEncoder) EncodeSummary(s *record.Summary) error { return e.encodeStd(s) }

// EncodeLine writes any other line (a kind's own line type, v marshalled
// with encoding/json) in order with the others.
func (e *JSONEncoder) EncodeLine(v any) error { return e.encodeStd(v) }

func (e *JSONEncoder) encodeStd(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.w.Write(b)
	return e.w.WriteByte('\n')
}

// EncodeRequest implements Encoder.
func (e *JSONEncoder) EncodeRequest(r *record.Request) error {
	e.mu.Lock()
	b := AppendRequestJSON(e.w.AvailableBuffer(), r)
	b = append(b, '\n')
	_, err := e.w.Write(b)
	e.mu.Unlock()
	return err
}

// Flush implements Flusher.
func (e *JSONEncoder) Flush() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.w.Flush()
}

// AppendRequestJSON appends the JSON encoding of r to b, byte for byte what
// encoding/json.Marshal(r) produces, without a trailing newline.
func AppendRequestJSON(b []byte, r *record.Request) []byte {
	b = append(b, `{"type":`...)
	b = appendString(b, r.Type)
	b = append(b, `,"id":`...)
	b = appendString(b, r.ID)
	b = append(b, `,"method":`...)
	b = appendString(b, r.Method)
	b = append(b, `,"path":`...)
	b = appendString(b, r.Path)
	b = append(b, `,"worker":`...)
	b = strconv.AppendInt(b, int64(r.Worker), 10)
	b = append(b, `,"conn":`...)
	b = strconv.AppendUint(b, r.Conn, 10)
	b = append(b, `,"reused":`...)
	b = strconv.AppendBool(b, r.Reused)
	if r.Scheduled != 0 {
		b = append(b, `,"scheduled_ns":`...)
		b = strconv.AppendInt(b, r.Scheduled, 10)
	}
	b = append(b, `,"start_ns":`...)
	b = strconv.AppendInt(b, r.Start, 10)
	if r.Connected != 0 {
		b = append(b, `,"connected_ns":`...)
		b = strconv.AppendInt(b, r.Connected, 10)
	}
	if r.Written != 0 {
		b = append(b, `,"written_ns":`...)
		b = strconv.AppendInt(b, r.Written, 10)
	}
	if r.FirstByte != 0 {
		b = append(b, `,"first_byte_ns":`...)
		b = strconv.AppendInt(b, r.FirstByte, 10)
	}
	b = append(b, `,"end_ns":`...)
	b = strconv.AppendInt(b, r.End, 10)
	if r.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(r.Status), 10)
	}
	b = append(b, `,"class":`...)
	b = appendString(b, string(r.Class))
	if r.ConnHeader != "" {
		b = append(b, `,"conn_header":`...)
		b = appendString(b, r.ConnHeader)
	}
	if r.Upstream != "" {
		b = append(b, `,"upstream":`...)
		b = appendString(b, r.Upstream)
	}
	if r.Hostile != "" {
		b = append(b, `,"hostile":`...)
		b = appendString(b, r.Hostile)
	}
	if r.SentBytes != 0 {
		b = append(b, `,"sent_bytes":`...)
		b = strconv.AppendInt(b, r.SentBytes, 10)
	}
	if r.Error != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, r.Error)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// safeASCII marks the ASCII bytes encoding/json copies unescaped (it
// HTML-escapes <, > and & by default).
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString appends s as a JSON string exactly as encoding/json does.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
