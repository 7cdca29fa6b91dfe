package images

import (
	"encoding/json"
	"fmt"
)

// CaddyFixtureConfigPath is where the Caddy fixture's JSON configuration
// lives in its image.
const CaddyFixtureConfigPath = "/etc/caddy/caddy.json"

// caddyRefusedUpstream is the upstream of the /slow route: a loopback port
// nothing listens on inside the fixture's container, so every dial is
// refused at once and never leaves the container.
const caddyRefusedUpstream = "127.0.0.1:9"

// caddyTryInterval is the wait between two dials of the refused upstream.
const caddyTryInterval = "50ms"

// CaddyFixtureConf renders the Caddy fixture's native JSON configuration:
// admin off (and nothing persisted), the HTTP app's grace_period set
// explicitly to graceSeconds (Caddy's default is 0: an eternal grace
// period), one server on port without automatic HTTPS. /readyz and /livez
// are static_response 200 "ok". /slow uses only stock handlers:
// reverse_proxy to caddyRefusedUpstream with load_balancing try_duration
// slowMs and try_interval 50 ms, so Caddy retries the refused dial until
// slowMs has passed and then fails with 502, which the server's error
// routes turn into 200 "ok". Nothing is written to the client before
// then. Caddy's context, which ends the retry wait, is cancelled only
// after the servers' graceful shutdown (caddy.go unsyncedStop, v2.11), so
// a graceful stop lets the wait run out.
func CaddyFixtureConf(port, graceSeconds, slowMs int) []byte {
	ok := map[string]any{"handler": "static_response", "status_code": 200, "body": "ok"}
	conf := map[string]any{
		"admin":   map[string]any{"disabled": true, "config": map[string]any{"persist": false}},
		"logging": map[string]any{"logs": map[string]any{"default": map[string]any{"level": "INFO"}}},
		"apps": map[string]any{"http": map[string]any{
			"grace_period": fmt.Sprintf("%ds", graceSeconds),
			"servers": map[string]any{"fixture": map[string]any{
				"listen":          []string{fmt.Sprintf(":%d", port)},
				"automatic_https": map[string]any{"disable": true},
				"idle_timeout":    "65s",
				"routes": []any{
					map[string]any{
						"match":    []any{map[string]any{"path": []string{StockReadyPath, StockLivePath}}},
						"handle":   []any{ok},
						"terminal": true,
					},
					map[string]any{
						"match": []any{map[string]any{"path": []string{StockSlowPath}}},
						"handle": []any{map[string]any{
							"handler":   "reverse_proxy",
							"upstreams": []any{map[string]any{"dial": caddyRefusedUpstream}},
							"load_balancing": map[string]any{
								"try_duration": fmt.Sprintf("%dms", slowMs),
								"try_interval": caddyTryInterval,
							},
						}},
						"terminal": true,
					},
				},
				"errors": map[string]any{"routes": []any{map[string]any{
					"match":  []any{map[string]any{"path": []string{StockSlowPath}}},
					"handle": []any{ok},
				}}},
			}},
		}},
	}
	b, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		panic(err) // only maps, slices, strings and ints: cannot fail
	}
	return append(b, '\n')
}

// caddyServer is Caddy v2, the binary of the project's Caddy image
// (cmd/caddy: Caddy's own main with the HTTP app and reverse_proxy), with
// CaddyFixtureConf layered on that image and run as `caddy run --config
// /etc/caddy/caddy.json` in the foreground as PID 1 (the official caddy
// image runs `caddy run` too). HOME and the XDG directories point at /tmp,
// where Caddy may keep its (unused) storage.
func caddyServer() StockServer {
	return StockServer{
		Name:       "caddy",
		Product:    "Caddy",
		Packages:   nil, // no Debian package: cmd/caddy, compiled from the Go module cache
		Install:    "shutdownlab images --print caddy (compiles cmd/caddy: Caddy's modules must be in the Go module cache or a reachable GOPROXY)",
		Files:      []File{{Path: CaddyFixtureConfigPath, Mode: 0o644, Data: CaddyFixtureConf(StockPort, StockGraceSeconds, int(StockSlowDelay.Milliseconds()))}},
		Entrypoint: []string{"/app", "run", "--config", CaddyFixtureConfigPath},
		Env:        []string{"HOME=/tmp", "XDG_CONFIG_HOME=/tmp", "XDG_DATA_HOME=/tmp"},
		Foreground: "caddy run (foreground) as PID 1, on the project's Caddy image",
		Base:       CaddyImageName,
		Version:    VersionQuery{GoModule: "github.com/caddyserver/caddy/v2"},
		Stop: StopSemantics{
			Graceful: "SIGTERM",
			Fast:     "SIGQUIT",
			Signals: []SignalRule{
				{"SIGTERM", ActionGraceful, "SIGTERM: graceful exit (new connections are no longer accepted, existing ones are drained; a grace period may apply)"},
				{"SIGINT", ActionGraceful, "SIGINT: graceful exit; send the signal again to force exit immediately"},
				{"SIGQUIT", ActionFast, "SIGQUIT: quits Caddy immediately, but still cleans up locks in storage"},
				{"SIGUSR1", ActionReload, "SIGUSR1: reloads the config file, only if started with caddy run --config and not changed through the API"},
				{"SIGUSR2", ActionIgnored, "SIGUSR2: ignored"},
				{"SIGHUP", ActionIgnored, "SIGHUP: ignored"},
			},
			GracefulBound:      "apps.http.grace_period 10s (Caddy's default: 0, an eternal grace period)",
			GracefulExit:       0,
			FastExit:           2,
			FastExitIdle:       2,
			ExitDoc:            "documented: 0 normal exit, 2 forced quit (https://caddyserver.com/docs/command-line#exit-codes)",
			DocURL:             "https://caddyserver.com/docs/command-line#signals",
			OfficialStopSignal: "",
		},
	}
}
