// Package benchserver is a trivial HTTP/1.1 keep-alive server for load
// client benchmarks: it reads request headers (no bodies), optionally waits,
// and answers every request with a fixed "200 OK" and a 2-byte body. It
// allocates nothing per request, so a benchmark measures the client.
package benchserver

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"time"
)

var response = []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok")

// Serve accepts connections on ln until it is closed, answering each request
// after delay. It returns the Accept error (net.ErrClosed after Close).
func Serve(ln net.Listener, delay time.Duration) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go serveConn(c, delay)
	}
}

func serveConn(c net.Conn, delay time.Duration) {
	defer c.Close()
	br := bufio.NewReaderSize(c, 4096)
	for {
		// Read one request head: lines until an empty one.
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(bytes.TrimRight(line, "\r\n")) == 0 {
				break
			}
		}
		if delay > 0 {
			time.Sleep(delay)
		}
		if _, err := c.Write(response); err != nil {
			return
		}
	}
}
