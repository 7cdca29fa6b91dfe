// Command workers is a test fixture for shutdownlab check: an HTTP server
// with a fixed number of synchronous workers, the shape of a pre-fork
// server (gunicorn's sync workers, Apache's prefork MPM with a small
// MaxRequestWorkers): WORKERS goroutines (default 4) each accept one
// connection, serve one request on it, answer with Connection: close and
// go back to accept. Clients beyond WORKERS wait in the listen backlog.
//
// Its shutdown is graceful for the work it is doing: on SIGTERM (or
// SIGINT) it closes the listener at once, lets every worker finish the
// request it holds, and exits 0. The connections still waiting in the
// backlog — accepted by the kernel, never by a worker — are reset when the
// listener closes: a stop cuts the queue, not the work. With no more
// clients than workers nothing waits, and the same stop drops nothing.
//
// It listens on :8080 and serves GET /readyz (200) and GET /slow (200 "ok"
// after 300 ms, or ?ms=N).
package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func main() {
	n, err := strconv.Atoi(os.Getenv("WORKERS"))
	if err != nil || n < 1 {
		n = 4
	}
	ln, err := net.Listen("tcp", ":8080")
	if err != nil {
		fmt.Fprintln(os.Stderr, "workers:", err)
		os.Exit(3)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	var workers sync.WaitGroup
	workers.Add(n)
	for range n {
		go func() {
			defer workers.Done()
			worker(ln)
		}()
	}
	fmt.Printf("workers: %d synchronous workers serving :8080\n", n)
	sig := <-sigs
	fmt.Printf("workers: %s: closing the listener, finishing the requests in progress\n", sig)
	ln.Close()
	workers.Wait() // each finishes the request it holds, then its Accept fails
	fmt.Println("workers: done, exit 0")
	os.Exit(0)
}

// worker accepts one connection at a time and serves one request on it,
// until the listener closes.
func worker(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return // the listener closed: stop
		}
		serve(c)
	}
}

// serve reads one request from c, answers it and closes c.
func serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	status, body := 200, "ok\n"
	switch req.URL.Path {
	case "/readyz":
		body = `{"ready":true}` + "\n"
	case "/slow":
		ms, err := strconv.Atoi(req.URL.Query().Get("ms"))
		if err != nil || ms < 0 {
			ms = 300
		}
		time.Sleep(time.Duration(ms) * time.Millisecond)
	default:
		status, body = 404, "not found\n"
	}
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
}
