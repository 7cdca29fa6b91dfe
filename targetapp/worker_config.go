package targetapp

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// PoolClose is POOL_CLOSE: when the database pool is closed.
type PoolClose string

// The POOL_CLOSE values.
const (
	// PoolCloseLast closes the pool after the HTTP drain and the worker's
	// stop (the right order).
	PoolCloseLast PoolClose = "last"
	// PoolCloseFirst closes the pool at the signal, under the requests and
	// jobs still running (the ordering bug of claim J4).
	PoolCloseFirst PoolClose = "first"
)

// RepeatSignal is REPEAT_SIGNAL: what a signal after the first does.
type RepeatSignal string

// The REPEAT_SIGNAL values.
const (
	// RepeatIgnore logs further signals as ignored.
	RepeatIgnore RepeatSignal = "ignore"
	// RepeatRestart re-arms the DRAIN_MS deadline from every further
	// signal (full mode; the bug of claim J5).
	RepeatRestart RepeatSignal = "restart"
)

// Defaults and limits of the worker's variables.
const (
	defaultWorkerConcurrency = 2
	maxWorkerConcurrency     = 1000
	defaultWorkerDeadline    = 5000 * time.Millisecond
	defaultRescueAfter       = time.Hour
)

// WorkerConfig is the queue worker's part of Config (WORKER=on), plus
// REPEAT_SIGNAL, which concerns the drain with or without a worker.
type WorkerConfig struct {
	// On is WORKER=on|off. Default off: no database, no River client, and
	// the app behaves as it did before the worker existed. On: a River
	// client (jobs.NewClient) works StepArgs jobs beside HTTP over a pool
	// on DatabaseURL, and /db answers.
	On bool
	// DatabaseURL is DATABASE_URL, the PostgreSQL connection string
	// (required with WORKER=on).
	DatabaseURL string
	// Concurrency is WORKER_CONCURRENCY, 1..1000, River's MaxWorkers.
	// Default 2.
	Concurrency int
	// Deadline is WORKER_DEADLINE_MS (full mode): how long after the
	// signal running jobs may still run; then their contexts are
	// cancelled (River's SoftStopTimeout; 0 cancels at once) and each
	// stops at its next checkpoint and is handed back. Default 5000.
	Deadline time.Duration
	// RescueAfter is RESCUE_AFTER_MS, 1..86400000, River's
	// RescueStuckJobsAfter: how long a job may stay running before the
	// leader's rescuer makes it retryable. Default 3600000 (1 h).
	RescueAfter time.Duration
	// PoolClose is POOL_CLOSE=last|first. Default last.
	PoolClose PoolClose
	// RepeatSignal is REPEAT_SIGNAL=ignore|restart (full mode, with or
	// without the worker). Default ignore.
	RepeatSignal RepeatSignal
}

// DefaultWorkerConfig returns the worker's defaults (WORKER=off).
func DefaultWorkerConfig() WorkerConfig {
	return WorkerConfig{
		Concurrency:  defaultWorkerConcurrency,
		Deadline:     defaultWorkerDeadline,
		RescueAfter:  defaultRescueAfter,
		PoolClose:    PoolCloseLast,
		RepeatSignal: RepeatIgnore,
	}
}

// fromEnv reads the worker's variables into w, returning one *ConfigError
// per invalid variable. They are checked whether or not WORKER=on.
func (w *WorkerConfig) fromEnv(getenv func(string) string) []error {
	var errs []error
	enum := func(name, v string, valid ...string) bool {
		for _, ok := range valid {
			if v == ok {
				return true
			}
		}
		errs = append(errs, &ConfigError{Var: name, Value: v, Reason: "must be " + strings.Join(valid, " or ")})
		return false
	}
	if v := getenv("WORKER"); v != "" && enum("WORKER", v, "off", "on") {
		w.On = v == "on"
	}
	if v := getenv("POOL_CLOSE"); v != "" && enum("POOL_CLOSE", v, string(PoolCloseLast), string(PoolCloseFirst)) {
		w.PoolClose = PoolClose(v)
	}
	if v := getenv("REPEAT_SIGNAL"); v != "" && enum("REPEAT_SIGNAL", v, string(RepeatIgnore), string(RepeatRestart)) {
		w.RepeatSignal = RepeatSignal(v)
	}
	ints := []struct {
		name     string
		min, max int
		set      func(int)
	}{
		{"WORKER_CONCURRENCY", 1, maxWorkerConcurrency, func(n int) { w.Concurrency = n }},
		{"WORKER_DEADLINE_MS", 0, maxMs, func(n int) { w.Deadline = time.Duration(n) * time.Millisecond }},
		{"RESCUE_AFTER_MS", 1, maxMs, func(n int) { w.RescueAfter = time.Duration(n) * time.Millisecond }},
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
	w.DatabaseURL = getenv("DATABASE_URL")
	if w.DatabaseURL != "" {
		if _, err := pgxpool.ParseConfig(w.DatabaseURL); err != nil {
			errs = append(errs, &ConfigError{Var: "DATABASE_URL", Value: redactURL(w.DatabaseURL),
				Reason: "not a PostgreSQL connection string: " + redact(err.Error(), w.DatabaseURL)})
		}
	} else if w.On {
		errs = append(errs, &ConfigError{Var: "DATABASE_URL", Value: "", Reason: "required with WORKER=on"})
	}
	return errs
}

// summary is the worker_up event's msg.
func (w WorkerConfig) summary() string {
	return fmt.Sprintf("concurrency=%d deadline_ms=%d rescue_after_ms=%d pool_close=%s repeat_signal=%s",
		w.Concurrency, w.Deadline.Milliseconds(), w.RescueAfter.Milliseconds(), w.PoolClose, w.RepeatSignal)
}

// dbHost names DATABASE_URL's host(s) and port for messages, never its
// password ("?" when it cannot be parsed).
func dbHost(dsn string) string {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return "?"
	}
	cc := cfg.ConnConfig
	return hostPort(cc.Host, cc.Port)
}

func hostPort(host string, port uint16) string {
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "/") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(int(port))
}

// urlPassword matches a URL's user:password@ (group 2: the password);
// kvPassword a keyword/value password=... (group 2 too).
var (
	urlPassword = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*://[^:@/]*:)([^@/]*)@`)
	kvPassword  = regexp.MustCompile(`(password\s*=\s*)('[^']*'|\S+)`)
)

// redactURL is dsn with its password, if any, replaced by "xxxxx" (in a
// URL or a keyword/value string, parsed or not).
func redactURL(dsn string) string {
	s := urlPassword.ReplaceAllString(dsn, "${1}xxxxx@")
	return kvPassword.ReplaceAllString(s, "${1}xxxxx")
}

// redact removes dsn's password from msg, in case an error quotes it.
func redact(msg, dsn string) string {
	for _, re := range []*regexp.Regexp{urlPassword, kvPassword} {
		if m := re.FindStringSubmatch(dsn); m != nil && m[2] != "" {
			msg = strings.ReplaceAll(msg, m[2], "xxxxx")
		}
	}
	return msg
}
