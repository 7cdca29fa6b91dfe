// Command reexec is a test fixture for shutdownlab check: a tiny HTTP
// server whose stop signal means "restart". On SIGTERM it re-executes
// itself (syscall.Exec of its own binary): it keeps its PID (1 in a
// container), the requests in flight are cut with their connections, and
// the new program image serves new connections; it never exits by itself
// on SIGTERM, so docker stop ends in SIGKILL. On SIGINT it shuts down
// gracefully (http.Server.Shutdown: stop accepting, finish the requests in
// flight) and exits 0.
//
// RESTART_DELAY_MS (default 0) makes the restart slow, the way a master
// process that keeps its listening socket while its workers come back is:
// the listener is handed to the new program image (its descriptor kept
// open across the exec), which waits that long before it accepts again.
// Meanwhile the kernel completes new connections into the listen backlog;
// they are answered once the restart is over. With 0 the listener closes
// at the exec and the new image opens a fresh one at once.
//
// It listens on :8080 and serves GET /readyz (200) and GET /slow (200 "ok"
// after 300 ms, or ?ms=N). It prints one line per start and per signal.
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// listenFDEnv names the inherited listener's descriptor after a slow restart.
const listenFDEnv = "REEXEC_LISTEN_FD"

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, `{"ready":true}`) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
		if err != nil || ms < 0 {
			ms = 300
		}
		time.Sleep(time.Duration(ms) * time.Millisecond)
		fmt.Fprintln(w, "ok")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	ln, err := listener()
	if err != nil {
		fmt.Fprintln(os.Stderr, "reexec:", err)
		os.Exit(3)
	}
	fmt.Printf("reexec: pid %d serving :8080\n", os.Getpid())
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			fmt.Fprintln(os.Stderr, "reexec:", err)
			os.Exit(3)
		}
	}()
	for sig := range sigs {
		switch sig {
		case syscall.SIGINT:
			fmt.Println("reexec: SIGINT: graceful shutdown")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			err := srv.Shutdown(ctx)
			cancel()
			if err != nil {
				os.Exit(1)
			}
			os.Exit(0)
		case syscall.SIGTERM:
			fmt.Println("reexec: SIGTERM: restarting (exec of my own binary)")
			fmt.Fprintln(os.Stderr, "reexec: exec:", restart(ln))
			os.Exit(4)
		}
	}
}

// listener is the inherited listener after a slow restart (served once the
// delay is over), else a fresh one on :8080.
func listener() (net.Listener, error) {
	fd, err := strconv.Atoi(os.Getenv(listenFDEnv))
	if err != nil {
		return net.Listen("tcp", ":8080")
	}
	os.Unsetenv(listenFDEnv)
	delay := restartDelay()
	fmt.Printf("reexec: restarting: the listener stays open, accepting again in %s\n", delay)
	time.Sleep(delay)
	return net.FileListener(os.NewFile(uintptr(fd), "listener"))
}

// restart re-executes the program; with a restart delay it hands the
// listener over (a duplicate without close-on-exec). It returns only on
// failure.
func restart(ln net.Listener) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	env := os.Environ()
	if restartDelay() > 0 {
		f, err := ln.(*net.TCPListener).File() // a dup: blocking, close-on-exec set
		if err != nil {
			return err
		}
		fd, err := syscall.Dup(int(f.Fd()))
		if err != nil {
			return err
		}
		env = append(env, fmt.Sprintf("%s=%d", listenFDEnv, fd)) // Dup clears close-on-exec
	}
	return syscall.Exec(self, os.Args, env)
}

// restartDelay is RESTART_DELAY_MS (0 when unset or bad).
func restartDelay() time.Duration {
	ms, err := strconv.Atoi(os.Getenv("RESTART_DELAY_MS"))
	if err != nil || ms < 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}
