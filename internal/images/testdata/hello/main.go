// Command hello is a tiny test program for shutdownlab's image and runtime
// tests. It prints an "up" line, writes a file to /data and sleeps until it
// is told to stop. Its behaviour is chosen by environment variables:
//
//	HANDLE=0       install no SIGTERM handler (Go default: as PID 1 without
//	               an init, SIGTERM makes the runtime exit with code 2)
//	IGNORE_TERM=1  ignore SIGTERM entirely (only SIGKILL stops it)
//	FAIL=N         print a line to stderr and exit with code N before "up"
//	DATA_FILE=P    write the data file at P (default /data/hello.txt)
//
// With the default handler it prints a "term" line and exits 0 on SIGTERM or
// SIGINT.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if code := os.Getenv("FAIL"); code != "" {
		n, _ := strconv.Atoi(code)
		fmt.Fprintln(os.Stdout, "hello: starting")
		fmt.Fprintln(os.Stderr, "hello: failing on purpose with code", n)
		os.Exit(n)
	}
	sigs := make(chan os.Signal, 1)
	switch {
	case os.Getenv("IGNORE_TERM") == "1":
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	case os.Getenv("HANDLE") == "0":
		// No handler: the Go runtime's default action applies.
	default:
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	}

	path := os.Getenv("DATA_FILE")
	if path == "" {
		path = "/data/hello.txt"
	}
	payload := fmt.Sprintf("hello from pid %d args=%s\n", os.Getpid(), strings.Join(os.Args[1:], ","))
	if err := os.WriteFile(path, []byte(payload), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "hello: write:", err)
		os.Exit(3)
	}
	fmt.Printf("{\"event\":\"up\",\"pid\":%d,\"args\":%q}\n", os.Getpid(), strings.Join(os.Args[1:], ","))

	select {
	case s := <-sigs:
		fmt.Printf("{\"event\":\"term\",\"signal\":%q}\n", s.String())
	case <-time.After(10 * time.Minute):
		fmt.Println("{\"event\":\"timeout\"}")
	}
}
