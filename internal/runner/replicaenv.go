package runner

import (
	"fmt"
	"strconv"
	"strings"
)

// targetEnv is the environment of target replica i's container: MODE,
// PORT, INSTANCE, the load's own (serviceDriver.replicaEnv: WORKER and
// DATABASE_URL for the jobs load) unless target.env sets the same
// variable, and the scenario's target.env. INSTANCE names the replica as
// the proxy does (its upstream host:port): a target can say who answered
// an upgrade, which no proxy header rule covers.
func (x *run) targetEnv(i int) []string {
	t := x.spec.Target
	env := []string{"MODE=" + string(t.Mode), "PORT=" + strconv.Itoa(x.port()),
		fmt.Sprintf("INSTANCE=%s:%d", replicaAlias(i), x.port())}
	if s, ok := x.load.(serviceDriver); ok {
		for _, kv := range s.replicaEnv() {
			k, _, _ := strings.Cut(kv, "=")
			if _, set := t.Env[k]; !set {
				env = append(env, kv)
			}
		}
	}
	for _, k := range sortedKeys(t.Env) {
		env = append(env, k+"="+t.Env[k])
	}
	return env
}

// envMap is an environment list as record.Replica.Env keeps it, so the
// metrics that compare clients with the replica's own settings
// (CLOSE_SPREAD_MS, UPGRADES_PER_S, the W6 budget) can read them from
// events.json.
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}
