package wsmetrics

import (
	"fmt"
	"strconv"
)

// wsEnv reads integer variables of a replica's environment
// (record.Replica.Env). A value that does not parse is null and leaves a
// note; so does every variable when the environment was not recorded
// (nil: never measured, not the defaults).
type wsEnv struct {
	vars  map[string]string
	notes []string
	noted map[string]bool
}

// note adds a note once per key.
func (e *wsEnv) note(key, msg string) {
	if e.noted[key] {
		return
	}
	if e.noted == nil {
		e.noted = map[string]bool{}
	}
	e.noted[key] = true
	e.notes = append(e.notes, msg)
}

// int returns the variable's value and whether it is set; set with ok
// false when it does not parse as a non-negative integer or the
// environment was not recorded.
func (e *wsEnv) int(name string) (n int, set, ok bool) {
	if e.vars == nil {
		e.note("", "the acted-on replica's environment is not in events.json: the ws metrics that read it (ws_close_spread_ms, ws_upgrades_per_s, ws_budget_ms, ws_budget_fits) are null")
		return 0, true, false
	}
	s, set := e.vars[name]
	if !set {
		return 0, false, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		e.note(name, fmt.Sprintf("target env %s=%q is not a non-negative integer: ws metrics that read it are null", name, s))
		return 0, true, false
	}
	return n, true, true
}

// ms is the variable as milliseconds; nil when unset or not a number.
func (e *wsEnv) ms(name string) *float64 {
	if n, set, ok := e.int(name); set && ok {
		return ptr(float64(n))
	}
	return nil
}

// count is the variable as a count; nil when unset or not a number.
func (e *wsEnv) count(name string) *int {
	if n, set, ok := e.int(name); set && ok {
		return ptr(n)
	}
	return nil
}

// wsBudget is W6: PRESTOP_MS + CLOSE_SPREAD_MS + CLOSE_DEADLINE_MS (unset:
// the targets' defaults 0, 0 and defaultCloseDeadlineMs), and whether it
// is less than the stop timeout (nil when that is unknown).
func wsBudget(e *wsEnv, stopTimeoutS *int) (*float64, *bool) {
	total := 0
	for _, v := range []struct {
		name string
		def  int
	}{{envPrestopMs, 0}, {envCloseSpreadMs, 0}, {envCloseDeadlineMs, defaultCloseDeadlineMs}} {
		n, set, ok := e.int(v.name)
		if !ok {
			return nil, nil
		}
		if !set {
			n = v.def
		}
		total += n
	}
	if stopTimeoutS == nil {
		return ptr(float64(total)), nil
	}
	return ptr(float64(total)), ptr(total < *stopTimeoutS*1000)
}
