// Command target is shutdownlab's Go target app: the target protocol over
// HTTP, shutting down in the mode MODE declares. See package targetapp for
// the endpoints, the environment and the lifecycle log on stdout.
//
// `target health PATH` is the image's own health check (its FROM-scratch
// image has no shell and no curl, so a Docker HEALTHCHECK runs the binary
// itself): it GETs http://localhost:$PORT/PATH (PORT default 8080) and
// exits 0 on a 2xx answer, 1 on anything else, within 2 s.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/targetapp"
)

// healthTimeout bounds one health check, connection included.
const healthTimeout = 2 * time.Second

func main() {
	if len(os.Args) > 1 && os.Args[1] == "health" {
		os.Exit(health(os.Args[2:], os.Getenv, os.Stderr))
	}
	os.Exit(targetapp.Main(os.Getenv, os.Stdout, os.Stderr))
}

// health runs `target health PATH`: 0 when GET localhost:$PORT/PATH
// answers 2xx within healthTimeout, 1 otherwise (2 on bad arguments).
func health(args []string, getenv func(string) string, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: target health PATH (e.g. /readyz)")
		return 2
	}
	port := getenv("PORT")
	if port == "" {
		port = "8080"
	}
	url := "http://localhost:" + port + "/" + strings.TrimPrefix(args[0], "/")
	ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintf(stderr, "health %s: %v\n", url, err)
		return 1
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "health %s: %v\n", url, err)
		return 1
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		fmt.Fprintf(stderr, "health %s: %s\n", url, resp.Status)
		return 1
	}
	return 0
}
