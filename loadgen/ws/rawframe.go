package ws

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// The raw peer's hand-written RFC 6455 client side: the upgrade request,
// the check of the server's answer, and the frame reader. It never writes
// a frame.

// The RFC 6455 opcodes the raw peer tells apart.
const (
	opContinuation = 0x0
	opText         = 0x1
	opClose        = 0x8
)

// maxRawPayload bounds the payload the raw peer keeps of a message; a
// longer one is read and discarded (the /events frames are a few hundred
// bytes).
const maxRawPayload = 1 << 20

// wsGUID is RFC 6455's magic string for Sec-WebSocket-Accept.
const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// codeNoStatus is RFC 6455's 1005: a close frame without a status code.
const codeNoStatus = 1005

// upgradeRequest is the client handshake for u with key (base64 of 16
// random bytes): GET, Host, Upgrade, Connection, Sec-WebSocket-Key and
// Sec-WebSocket-Version, and nothing else.
func upgradeRequest(u *url.URL, key string) []byte {
	return []byte("GET " + u.RequestURI() + " HTTP/1.1\r\n" +
		"Host: " + u.Host + "\r\n" +
		"Upgrade: websocket\r\n" +
		"Connection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + key + "\r\n" +
		"Sec-WebSocket-Version: 13\r\n\r\n")
}

// acceptKey is the Sec-WebSocket-Accept a server must answer key with.
func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + wsGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

// checkUpgrade checks a 101 response to a handshake with key: Upgrade
// websocket, Connection upgrade, and the right Sec-WebSocket-Accept.
func checkUpgrade(resp *http.Response, key string) error {
	if resp.StatusCode != http.StatusSwitchingProtocols {
		return fmt.Errorf("handshake: status %d, want 101", resp.StatusCode)
	}
	if v := resp.Header.Get("Upgrade"); !strings.EqualFold(v, "websocket") {
		return fmt.Errorf("handshake: Upgrade %q, want websocket", v)
	}
	if !hasToken(resp.Header.Values("Connection"), "upgrade") {
		return fmt.Errorf("handshake: Connection %q, want upgrade", resp.Header.Values("Connection"))
	}
	if v, want := resp.Header.Get("Sec-WebSocket-Accept"), acceptKey(key); v != want {
		return fmt.Errorf("handshake: Sec-WebSocket-Accept %q, want %q", v, want)
	}
	return nil
}

// hasToken reports whether the comma-separated header values hold token
// (case-insensitive).
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// frame is one frame read: its FIN bit, opcode and payload (nil when it
// was longer than the limit and discarded; length is then its size).
type frame struct {
	fin     bool
	op      byte
	length  uint64
	payload []byte
}

// errProtocol marks a frame that breaks RFC 6455's framing.
var errProtocol = errors.New("websocket protocol error")

// readFrame reads one frame from r: 7-, 16- or 64-bit payload lengths,
// unmasking a masked payload (a server must not mask; it is read anyway).
// A payload over limit is discarded. A truncated frame is
// io.ErrUnexpectedEOF; io.EOF only at a frame boundary.
func readFrame(r *bufio.Reader, limit uint64) (frame, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return frame{}, err
	}
	f := frame{fin: hdr[0]&0x80 != 0, op: hdr[0] & 0x0f, length: uint64(hdr[1] & 0x7f)}
	var ext [8]byte
	switch f.length {
	case 126:
		if _, err := io.ReadFull(r, ext[:2]); err != nil {
			return f, unexpected(err)
		}
		f.length = uint64(binary.BigEndian.Uint16(ext[:2]))
	case 127:
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return f, unexpected(err)
		}
		if f.length = binary.BigEndian.Uint64(ext[:]); f.length>>63 != 0 {
			return f, fmt.Errorf("%w: 64-bit length with its top bit set", errProtocol)
		}
	}
	if f.op >= opClose && (f.length > 125 || !f.fin) {
		return f, fmt.Errorf("%w: control frame %#x of %d bytes, fin %v", errProtocol, f.op, f.length, f.fin)
	}
	var mask [4]byte
	masked := hdr[1]&0x80 != 0
	if masked {
		if _, err := io.ReadFull(r, mask[:]); err != nil {
			return f, unexpected(err)
		}
	}
	if f.length > limit {
		if _, err := io.CopyN(io.Discard, r, int64(f.length)); err != nil {
			return f, unexpected(err)
		}
		return f, nil
	}
	f.payload = make([]byte, f.length)
	if _, err := io.ReadFull(r, f.payload); err != nil {
		return f, unexpected(err)
	}
	if masked {
		for i := range f.payload {
			f.payload[i] ^= mask[i%4]
		}
	}
	return f, nil
}

// unexpected turns an EOF inside a frame into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// parseClose returns a close frame's code and reason: 1005 when the
// payload is empty, an error when it is one byte.
func parseClose(p []byte) (code int, reason string, err error) {
	switch len(p) {
	case 0:
		return codeNoStatus, "", nil
	case 1:
		return 0, "", fmt.Errorf("%w: close payload of 1 byte", errProtocol)
	}
	return int(binary.BigEndian.Uint16(p)), string(p[2:]), nil
}

// messages assembles frames into messages: a text or binary frame, then
// continuations until FIN. Control frames pass between them.
type messages struct {
	op       byte
	buf      []byte
	tooLarge bool
	open     bool
}

// add takes one data frame; it returns the message when f completed one
// (ok false while fragmented, and for a message over maxRawPayload, which
// is dropped).
func (m *messages) add(f frame) (op byte, msg []byte, ok bool, err error) {
	switch {
	case f.op == opContinuation && !m.open:
		return 0, nil, false, fmt.Errorf("%w: continuation without a message", errProtocol)
	case f.op != opContinuation && m.open:
		return 0, nil, false, fmt.Errorf("%w: new message %#x inside a fragmented one", errProtocol, f.op)
	case f.op != opContinuation:
		m.op, m.buf, m.tooLarge, m.open = f.op, m.buf[:0], false, true
	}
	if f.payload == nil && f.length > 0 || uint64(len(m.buf))+f.length > maxRawPayload {
		m.tooLarge = true
	}
	if !m.tooLarge {
		m.buf = append(m.buf, f.payload...)
	}
	if !f.fin {
		return 0, nil, false, nil
	}
	m.open = false
	return m.op, m.buf, !m.tooLarge, nil
}
