package targetapp

import (
	"fmt"
	"strconv"
	"time"
)

// The defaults and limits of the /events variables.
const (
	defaultEventsPerS    = 10
	maxEventsPerS        = 1000
	maxEventsReplay      = 1000000
	maxUpgradesPerS      = 1000000
	defaultCloseDeadline = 2000 * time.Millisecond
	// maxCloseDeadlineMs stays below github.com/coder/websocket's own 5 s
	// wait for the peer's close frame, so the app, not the library, decides
	// when a peer is terminated.
	maxCloseDeadlineMs = 4000
)

// wsFromEnv reads the /events variables into c (see Config), returning one
// *ConfigError per invalid variable.
func (c *Config) wsFromEnv(getenv func(string) string) []error {
	var errs []error
	ints := []struct {
		name     string
		min, max int
		set      func(int)
	}{
		{"EVENTS_PER_S", 0, maxEventsPerS, func(n int) { c.EventsPerS = n }},
		{"EVENTS_REPLAY", 0, maxEventsReplay, func(n int) { c.EventsReplay = n }},
		{"UPGRADES_PER_S", 0, maxUpgradesPerS, func(n int) { c.UpgradesPerS = n }},
		{"CLOSE_SPREAD_MS", 0, maxMs, func(n int) { c.CloseSpread = time.Duration(n) * time.Millisecond }},
		{"CLOSE_DEADLINE_MS", 1, maxCloseDeadlineMs, func(n int) { c.CloseDeadline = time.Duration(n) * time.Millisecond }},
	}
	switch v := getenv("UPGRADES_WHILE_DRAINING"); v {
	case "", "refuse":
	case "accept":
		c.AdmitDraining = true
	default:
		errs = append(errs, &ConfigError{Var: "UPGRADES_WHILE_DRAINING", Value: v, Reason: "must be refuse or accept"})
	}
	for _, v := range ints {
		s := getenv(v.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < v.min || n > v.max {
			errs = append(errs, &ConfigError{Var: v.name, Value: s,
				Reason: fmt.Sprintf("must be an integer in %d..%d", v.min, v.max)})
			continue
		}
		v.set(n)
	}
	return errs
}
