package ws

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// wireFrame builds a frame as a server (or, masked, a client) writes it.
func wireFrame(fin bool, op byte, payload []byte, lenBytes int, mask []byte) []byte {
	var b bytes.Buffer
	b0 := op
	if fin {
		b0 |= 0x80
	}
	b.WriteByte(b0)
	m := byte(0)
	if mask != nil {
		m = 0x80
	}
	switch lenBytes {
	case 0:
		b.WriteByte(m | byte(len(payload)))
	case 2:
		b.WriteByte(m | 126)
		_ = binary.Write(&b, binary.BigEndian, uint16(len(payload)))
	case 8:
		b.WriteByte(m | 127)
		_ = binary.Write(&b, binary.BigEndian, uint64(len(payload)))
	}
	if mask != nil {
		b.Write(mask)
		for i, c := range payload {
			b.WriteByte(c ^ mask[i%4])
		}
		return b.Bytes()
	}
	b.Write(payload)
	return b.Bytes()
}

func TestReadFrame(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 300)
	huge := bytes.Repeat([]byte("y"), 70000)
	for _, tt := range []struct {
		name    string
		wire    []byte
		limit   uint64
		op      byte
		fin     bool
		payload []byte // nil: discarded
		length  uint64
		err     error
	}{
		{"7-bit text", wireFrame(true, opText, []byte("hi"), 0, nil), 1 << 20, opText, true, []byte("hi"), 2, nil},
		{"16-bit text", wireFrame(true, opText, long, 2, nil), 1 << 20, opText, true, long, 300, nil},
		{"64-bit binary", wireFrame(true, 0x2, huge, 8, nil), 1 << 20, 0x2, true, huge, 70000, nil},
		{"not final", wireFrame(false, opText, []byte("a"), 0, nil), 1 << 20, opText, false, []byte("a"), 1, nil},
		{"masked", wireFrame(true, opText, []byte("hello"), 0, []byte{1, 2, 3, 4}), 1 << 20, opText, true, []byte("hello"), 5, nil},
		{"empty close", wireFrame(true, opClose, nil, 0, nil), 1 << 20, opClose, true, []byte{}, 0, nil},
		{"over the limit, discarded", wireFrame(true, opText, long, 2, nil), 100, opText, true, nil, 300, nil},
		{"nothing", nil, 1 << 20, 0, false, nil, 0, io.EOF},
		{"truncated header", []byte{0x81}, 1 << 20, 0, false, nil, 0, io.ErrUnexpectedEOF},
		{"truncated length", []byte{0x81, 126, 1}, 1 << 20, 0, false, nil, 0, io.ErrUnexpectedEOF},
		{"truncated payload", wireFrame(true, opText, long, 2, nil)[:100], 1 << 20, 0, false, nil, 0, io.ErrUnexpectedEOF},
		{"64-bit top bit", append([]byte{0x82, 127, 0x80}, make([]byte, 7)...), 1 << 20, 0, false, nil, 0, errProtocol},
		{"long control frame", wireFrame(true, opClose, long, 2, nil), 1 << 20, 0, false, nil, 0, errProtocol},
		{"fragmented control frame", wireFrame(false, 0x9, nil, 0, nil), 1 << 20, 0, false, nil, 0, errProtocol},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := readFrame(bufio.NewReader(bytes.NewReader(tt.wire)), tt.limit)
			if tt.err != nil || err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("error %v, want %v", err, tt.err)
				}
				return
			}
			if f.op != tt.op || f.fin != tt.fin || f.length != tt.length || !bytes.Equal(f.payload, tt.payload) ||
				(f.payload == nil) != (tt.payload == nil) {
				t.Errorf("frame op %#x fin %v length %d payload %d bytes (nil %v), want %#x %v %d %d (nil %v)",
					f.op, f.fin, f.length, len(f.payload), f.payload == nil,
					tt.op, tt.fin, tt.length, len(tt.payload), tt.payload == nil)
			}
		})
	}
}

// Frames read back to back: the reader stops at each frame's end.
func TestReadFrameSequence(t *testing.T) {
	wire := append(wireFrame(true, opText, []byte("one"), 0, nil), wireFrame(true, opClose, []byte{3, 0xe9}, 0, nil)...)
	r := bufio.NewReader(bytes.NewReader(wire))
	for _, want := range []byte{opText, opClose} {
		if f, err := readFrame(r, 1<<20); err != nil || f.op != want {
			t.Fatalf("frame %+v, %v; want op %#x", f, err, want)
		}
	}
	if _, err := readFrame(r, 1<<20); err != io.EOF {
		t.Errorf("after the last frame: %v, want EOF", err)
	}
}

func TestParseClose(t *testing.T) {
	for _, tt := range []struct {
		name    string
		payload []byte
		code    int
		reason  string
		err     bool
	}{
		{"1001 with reason", append([]byte{0x03, 0xe9}, "going away"...), 1001, "going away", false},
		{"1000 bare", []byte{0x03, 0xe8}, 1000, "", false},
		{"empty: 1005", nil, 1005, "", false},
		{"one byte", []byte{0x03}, 0, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, reason, err := parseClose(tt.payload)
			if code != tt.code || reason != tt.reason || (err != nil) != tt.err {
				t.Errorf("parseClose = %d %q %v, want %d %q error %v", code, reason, err, tt.code, tt.reason, tt.err)
			}
		})
	}
}

func TestMessages(t *testing.T) {
	text := func(fin bool, s string) frame {
		return frame{fin: fin, op: opText, length: uint64(len(s)), payload: []byte(s)}
	}
	cont := func(fin bool, s string) frame {
		return frame{fin: fin, op: opContinuation, length: uint64(len(s)), payload: []byte(s)}
	}
	for _, tt := range []struct {
		name   string
		frames []frame
		msgs   []string // the messages completed, in order
		err    bool
	}{
		{"single frames", []frame{text(true, "a"), text(true, "b")}, []string{"a", "b"}, false},
		{"fragmented", []frame{text(false, "ab"), cont(false, "c"), cont(true, "d")}, []string{"abcd"}, false},
		{"discarded part drops the message", []frame{text(false, "a"), {fin: true, op: opContinuation, length: 5}},
			nil, false},
		{"continuation first", []frame{cont(true, "x")}, nil, true},
		{"new message inside one", []frame{text(false, "a"), text(true, "b")}, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var m messages
			var got []string
			var err error
			for _, f := range tt.frames {
				_, msg, ok, ferr := m.add(f)
				if err = ferr; err != nil {
					break
				}
				if ok {
					got = append(got, string(msg))
				}
			}
			if (err != nil) != tt.err || strings.Join(got, "|") != strings.Join(tt.msgs, "|") {
				t.Errorf("messages %q, error %v; want %q, error %v", got, err, tt.msgs, tt.err)
			}
		})
	}
}

func TestCheckUpgrade(t *testing.T) {
	// RFC 6455 section 1.3's example key and answer.
	const key, accept = "dGhlIHNhbXBsZSBub25jZQ==", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
	if got := acceptKey(key); got != accept {
		t.Fatalf("acceptKey = %q, want RFC 6455's %q", got, accept)
	}
	good := http.Header{"Upgrade": {"websocket"}, "Connection": {"Upgrade"}, "Sec-Websocket-Accept": {accept}}
	for _, tt := range []struct {
		name   string
		status int
		mod    func(http.Header)
		want   string
	}{
		{"valid", 101, func(http.Header) {}, ""},
		{"connection token list", 101, func(h http.Header) { h.Set("Connection", "keep-alive, upgrade") }, ""},
		{"refused", 503, func(http.Header) {}, "status 503"},
		{"wrong accept", 101, func(h http.Header) { h.Set("Sec-Websocket-Accept", "x") }, "Sec-WebSocket-Accept"},
		{"no upgrade", 101, func(h http.Header) { h.Del("Upgrade") }, "Upgrade"},
		{"no connection", 101, func(h http.Header) { h.Set("Connection", "close") }, "Connection"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := good.Clone()
			tt.mod(h)
			err := checkUpgrade(&http.Response{StatusCode: tt.status, Header: h}, key)
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
