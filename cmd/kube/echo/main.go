// Command echo is the test workload of shutdownlab's Kubernetes kit
// (scripts/kube-e2e.sh): a static HTTP server that answers with its pod
// name and logs every request, and a client mode that calls a URL a
// bounded number of times. It is built FROM scratch and reaches the
// cluster through the kit's registry, as any shutdownlab image would.
//
//	echo serve [ADDR]          default :8080; exits 0 on SIGTERM after
//	                           draining (http.Server.Shutdown, 5 s bound)
//	echo get URL [N] [GAP]     N requests (default 5), GAP apart (200ms);
//	                           exit 1 if any failed
//	echo serve-get ADDR URL N  serve, and after 2 s call URL N times (a pod
//	                           reaching itself through its own Service:
//	                           the hairpin check); the results go to the log
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: echo serve [ADDR] | echo get URL [N] [GAP] | echo serve-get ADDR URL N")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		addr := ":8080"
		if len(os.Args) > 2 {
			addr = os.Args[2]
		}
		os.Exit(serve(addr))
	case "serve-get":
		if len(os.Args) < 5 {
			fmt.Fprintln(os.Stderr, "echo serve-get ADDR URL N")
			os.Exit(2)
		}
		n, _ := strconv.Atoi(os.Args[4])
		go func() {
			time.Sleep(2 * time.Second)
			get(os.Args[3], n, 200*time.Millisecond)
		}()
		os.Exit(serve(os.Args[2]))
	case "get":
		if len(os.Args) < 3 {
			fmt.Fprintln(os.Stderr, "echo get URL [N] [GAP]")
			os.Exit(2)
		}
		n, gap := 5, 200*time.Millisecond
		if len(os.Args) > 3 {
			n, _ = strconv.Atoi(os.Args[3])
		}
		if len(os.Args) > 4 {
			gap, _ = time.ParseDuration(os.Args[4])
		}
		os.Exit(get(os.Args[2], n, gap))
	default:
		fmt.Fprintf(os.Stderr, "echo: unknown mode %q\n", os.Args[1])
		os.Exit(2)
	}
}

func serve(addr string) int {
	name, _ := os.Hostname()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Printf("%s %s %s from %s\n", time.Now().UTC().Format(time.RFC3339Nano), r.Method, r.URL.Path, r.RemoteAddr)
		fmt.Fprintf(w, "pod=%s\n", name)
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	fmt.Printf("serving on %s as %s\n", addr, name)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	case s := <-sigs:
		fmt.Printf("got %v, shutting down\n", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "shutdown:", err)
		return 1
	}
	return 0
}

func get(url string, n int, gap time.Duration) int {
	// A new connection per request, so a Service spreads them over its pods.
	client := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	failed := 0
	for i := 0; i < n; i++ {
		if i > 0 {
			time.Sleep(gap)
		}
		resp, err := client.Get(url)
		if err != nil {
			fmt.Printf("get %d: error: %v\n", i, err)
			failed++
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("get %d: %d %s", i, resp.StatusCode, body)
	}
	fmt.Printf("done: %d of %d failed\n", failed, n)
	if failed > 0 {
		return 1
	}
	return 0
}
