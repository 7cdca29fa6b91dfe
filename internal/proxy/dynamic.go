package proxy

import (
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// DynamicConfig is Config with the upstreams taken from DNS instead of a
// fixed list (platform swarm: a service's tasks come and go): Caddy
// resolves name's A records (IPv4 only) every refresh and dials each
// address at port. Everything else, the policy, active and passive health
// checks, retries, the upstream header, is Config's. The header then
// names the task's address ("10.0.1.5:8080").
func DynamicConfig(p scenarios.Proxy, name string, port int, refresh time.Duration) ([]byte, error) {
	return build(p, kv("dynamic_upstreams", obj{
		kv("source", "a"),
		kv("name", name),
		kv("port", strconv.Itoa(port)),
		kv("refresh", refresh.String()),
		kv("versions", obj{kv("ipv4", true)}),
	}), options{})
}
