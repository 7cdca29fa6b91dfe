package runner

import (
	"fmt"
	"strconv"
	"strings"
)

// targetEnv is the environment the harness adds to target replica i's
// container. A user's image (target.image) gets only the scenario's
// target.env: it is measured as it ships, with its own environment,
// entrypoint, user and stop signal, plus what the user set. The built-in
// targets get their protocol variables: MODE, PORT, INSTANCE, the load's
// own (ServiceDriver.ReplicaEnv: WORKER and DATABASE_URL for the jobs
// load) unless target.env sets the same variable, and target.env.
// INSTANCE names the replica as the proxy does (its upstream host:port):
// a target can say who answered an upgrade, which no proxy header rule
// covers.
func (x *run) targetEnv(i int) []string {
	t := x.spec.Target
	if t.Image != "" {
		var env []string
		for _, k := range sortedKeys(t.Env) {
			env = append(env, k+"="+t.Env[k])
		}
		return env
	}
	env := []string{"MODE=" + string(t.Mode), "PORT=" + strconv.Itoa(x.port()),
		fmt.Sprintf("INSTANCE=%s:%d", replicaAlias(i), x.port())}
	for _, kv := range x.load.replicaEnv() {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := t.Env[k]; !set {
			env = append(env, kv)
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

// envOverrides returns, for each variable of set that the image's own
// environment (NAME=VALUE lines) defines with another value, the image's
// value: what the user's settings replaced. Nil when nothing is replaced.
func envOverrides(image []string, set map[string]string) map[string]string {
	var out map[string]string
	for _, kv := range image {
		k, v, _ := strings.Cut(kv, "=")
		if nv, ok := set[k]; ok && nv != v {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}
