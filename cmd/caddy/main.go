// Command caddy is shutdownlab's reverse proxy: Caddy v2's own main with
// only the modules a scenario needs (the HTTP server and reverse_proxy with
// its load balancing and health checks). It lives in a nested module so
// Caddy's large dependency graph stays out of the root module.
//
// The configuration is Caddy's native JSON, generated per scenario by
// internal/proxy. It is not baked into the image (that would rebuild the
// image per configuration): the harness passes it in the environment
// variable SHUTDOWNLAB_CADDY_CONFIG. When that variable is set and no
// arguments are given, main writes it to /tmp/caddy.json and runs
// "caddy run --config /tmp/caddy.json". With arguments, main is plain
// Caddy (e.g. "run --config /etc/caddy/caddy.json" for docker-compose).
package main

import (
	"fmt"
	"os"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	// Only the HTTP app and the reverse proxy; no TLS automation extras,
	// no Caddyfile adapters beyond what the core registers.
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
)

// ConfigEnv is the environment variable holding the JSON configuration.
const ConfigEnv = "SHUTDOWNLAB_CADDY_CONFIG"

// configPath is where the configuration from ConfigEnv is written.
const configPath = "/tmp/caddy.json"

func main() {
	if cfg := os.Getenv(ConfigEnv); cfg != "" && len(os.Args) == 1 {
		if err := os.WriteFile(configPath, []byte(cfg), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "caddy: write %s: %v\n", configPath, err)
			os.Exit(1)
		}
		os.Args = append(os.Args, "run", "--config", configPath)
	}
	caddycmd.Main()
}
