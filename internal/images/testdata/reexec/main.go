// Command reexec is a test fixture for shutdownlab check: a tiny HTTP
// server whose stop signal means "restart". On SIGTERM it re-executes
// itself (syscall.Exec of its own binary): it keeps its PID (1 in a
// container), the requests in flight are cut with their connections, and
// the new program image serves new connections on a fresh listener; it
// never exits by itself on SIGTERM, so docker stop ends in SIGKILL. On
// SIGINT it shuts down gracefully (http.Server.Shutdown: stop accepting,
// finish the requests in flight) and exits 0.
//
// It listens on :8080 and serves GET /readyz (200) and GET /slow (200 "ok"
// after 300 ms, or ?ms=N). It prints one line per start and per signal.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

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
	srv := &http.Server{Addr: ":8080", Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	fmt.Printf("reexec: pid %d serving :8080\n", os.Getpid())
	go func() {
		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
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
			self, err := os.Executable()
			if err == nil {
				err = syscall.Exec(self, os.Args, os.Environ())
			}
			fmt.Fprintln(os.Stderr, "reexec: exec:", err)
			os.Exit(4)
		}
	}
}
