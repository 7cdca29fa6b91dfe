// Package proxy generates the configuration of the Caddy reverse proxy of
// topology caddy: Caddy's native JSON, from a scenario's proxy block and the
// upstream names. It is pure (no I/O), so the exact configuration a run
// uses is golden-tested, saved with the run (proxy.json) and shown in the
// report.
//
// What the JSON says, and nothing more: one HTTP server on :8080, no
// automatic HTTPS, the admin endpoint disabled unless the scenario
// deregisters a replica (then on the container's loopback, AdminAddress;
// never an autosaved config),
// logs as JSON on stdout, one reverse_proxy handler with the scenario's selection policy, active health
// checks (health_uri, health_interval, health_timeout), passive health
// checks when fail_duration > 0, a response header naming the upstream that
// served each request (record.UpstreamHeader), and retries (try_duration, try_interval,
// retry_match by method) when try_duration > 0. With try_duration 0 Caddy
// makes exactly one attempt per request.
package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/shutdownlab/shutdownlab/internal/orderedjson"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Port is the port Caddy listens on inside its container, and the
// built-in targets' port (a user image's may differ: see Upstream).
const Port = 8080

// AdminAddress is where Caddy's admin API listens when the scenario
// deregisters a replica (proxy.deregister_after): the container's own
// loopback, reachable only from inside the container.
const AdminAddress = "localhost:2019"

// Upstream returns the dial address of the replica with alias name that
// listens on port.
func Upstream(name string, port int) string { return name + ":" + strconv.Itoa(port) }

// Config returns Caddy's JSON configuration (indented, stable key order)
// for proxy settings p in front of the named upstreams (container aliases
// on the scenario network, e.g. "replica-0") that listen on port.
func Config(p scenarios.Proxy, upstreams []string, port int, opts ...Option) ([]byte, error) {
	if len(upstreams) == 0 {
		return nil, fmt.Errorf("proxy: no upstreams")
	}
	var ups []any
	for _, u := range upstreams {
		ups = append(ups, obj{kv("dial", Upstream(u, port))})
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return build(p, kv("upstreams", ups), o)
}

// Option changes a configuration beyond the scenario's proxy block.
type Option func(*options)

type options struct{ errorsNameUpstream bool }

// ErrorsNameUpstream makes the proxy's own error responses (a 502 when
// an upstream refused or dropped the connection) carry
// record.UpstreamHeader too, naming the upstream it had picked: Caddy
// sets the header on an upstream's responses only. The status stays
// Caddy's, the body stays empty. A run with a new pod needs it, to tell
// the failures of the pod that joined from those of the pod that left.
func ErrorsNameUpstream() Option { return func(o *options) { o.errorsNameUpstream = true } }

// build is Config with the handler's backends given as one field: a
// static "upstreams" list or "dynamic_upstreams" (DynamicConfig).
func build(p scenarios.Proxy, backends orderedjson.Field, o options) ([]byte, error) {
	lb := obj{kv("selection_policy", obj{kv("policy", p.Policy)})}
	if p.TryDuration > 0 {
		methods := p.RetryMethods
		if methods == nil {
			methods = []string{}
		}
		lb = append(lb,
			kv("try_duration", p.TryDuration.String()),
			kv("try_interval", p.TryInterval.String()),
			kv("retry_match", []any{obj{kv("method", methods)}}))
	}
	hc := obj{}
	if p.HealthURI != "none" {
		hc = append(hc, kv("active", obj{
			kv("uri", p.HealthURI),
			kv("interval", p.HealthInterval.String()),
			kv("timeout", p.HealthTimeout.String()),
		}))
	}
	if p.FailDuration > 0 {
		hc = append(hc, kv("passive", obj{
			kv("fail_duration", p.FailDuration.String()),
			kv("max_fails", p.MaxFails),
		}))
	}
	handler := obj{
		kv("handler", "reverse_proxy"),
		backends,
		kv("load_balancing", lb),
		// Name the upstream that served each response, so the report can
		// count requests per replica and time the rolled one's drain.
		kv("headers", obj{kv("response", obj{kv("set", obj{
			kv(record.UpstreamHeader, []string{"{http.reverse_proxy.upstream.hostport}"}),
		})})}),
	}
	if len(hc) > 0 {
		handler = append(handler, kv("health_checks", hc))
	}
	admin := obj{kv("disabled", true), kv("config", obj{kv("persist", false)})}
	if p.DeregisterAfter != nil {
		// The runner deregisters a replica through the admin API, from
		// inside the container (see Deregistered); loopback only.
		admin = obj{kv("listen", AdminAddress), kv("config", obj{kv("persist", false)})}
	}
	server := obj{
		kv("listen", []string{":" + strconv.Itoa(Port)}),
		kv("automatic_https", obj{kv("disable", true)}),
		kv("routes", []any{obj{kv("handle", []any{handler})}}),
	}
	if o.errorsNameUpstream {
		server = append(server, kv("errors", obj{kv("routes", []any{obj{kv("handle", []any{
			obj{kv("handler", "headers"), kv("response", obj{kv("set", obj{
				kv(record.UpstreamHeader, []string{"{http.reverse_proxy.upstream.hostport}"}),
			})})},
			obj{kv("handler", "static_response"), kv("status_code", "{http.error.status_code}")},
		})}})}))
	}
	cfg := obj{
		kv("admin", admin),
		kv("logging", obj{kv("logs", obj{kv("default", obj{
			kv("level", "INFO"),
			kv("writer", obj{kv("output", "stdout")}),
		})})}),
		kv("apps", obj{kv("http", obj{kv("servers", obj{kv("proxy", server)})})}),
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(cfg); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	return b.Bytes(), nil
}

// Deregistered returns the configuration Config(p, upstreams) would
// return without the upstream named removed: what the runner loads
// through the admin API to deregister that replica. Everything else
// (policy, health checks, retries, admin endpoint) is unchanged.
func Deregistered(p scenarios.Proxy, upstreams []string, port int, removed string, opts ...Option) ([]byte, error) {
	var rest []string
	for _, u := range upstreams {
		if u != removed {
			rest = append(rest, u)
		}
	}
	if len(rest) == len(upstreams) {
		return nil, fmt.Errorf("proxy: %q is not an upstream", removed)
	}
	return Config(p, rest, port, opts...)
}

// obj is a JSON object that keeps its key order.
type obj = orderedjson.Object

// kv is one key of an obj.
func kv(k string, v any) orderedjson.Field { return orderedjson.Field{Key: k, Value: v} }
