package targetapp

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Mode is a shutdown mode: how the app reacts to SIGTERM and SIGINT.
type Mode string

// The shutdown modes. See the package documentation for what each one does.
const (
	// ModeNone installs no signal handler at all.
	ModeNone Mode = "none"
	// ModeClose calls the stock http.Server.Shutdown and exits when it returns.
	ModeClose Mode = "close"
	// ModeFull runs the five-step graceful shutdown.
	ModeFull Mode = "full"
)

// maxMs bounds every millisecond value (24 hours).
const maxMs = 24 * 60 * 60 * 1000

// Config is the app's configuration, read from the environment by
// ConfigFromEnv. Each field names its variable and default.
type Config struct {
	// Mode is MODE: none, close or full. Default full (the declared, graceful
	// mode; the broken ones must be asked for).
	Mode Mode
	// Host is LISTEN_HOST, the address to listen on. Default empty: every
	// interface, as a container needs. Tests set 127.0.0.1.
	Host string
	// Port is PORT, 0..65535. Default 8080; 0 lets the kernel pick, and the
	// "up" event says which port it picked.
	Port int
	// Drain is DRAIN_MS, the drain deadline counted from the signal (full
	// mode). Default 0: no deadline.
	Drain time.Duration
	// PreStop is PRESTOP_MS, how long readiness stays failed while the app
	// keeps serving before it closes the listener (full mode). Default 0.
	PreStop time.Duration
	// Startup is STARTUP_MS, how long the app takes to start before it
	// listens (a warm-up: loading data, compiling, connecting): its port
	// refuses connections until then. Default 0.
	Startup time.Duration
	// KeepAlive is KEEPALIVE_MS, the keep-alive idle timeout
	// (http.Server.IdleTimeout). Default 5000, like Node's keepAliveTimeout;
	// 0 means no idle timeout.
	KeepAlive time.Duration
	// Sweep is SWEEP_MS, the interval of the idle-connection sweep during the
	// drain (full mode). Default 100; must be at least 1.
	Sweep time.Duration
	// DataDir is DATA_DIR, where ledger.log and job.log are written. Default
	// /data; created if missing.
	DataDir string

	// EventsPerS is EVENTS_PER_S, the /events stream's rate, 0..1000 events
	// per second. Default 10; 0 sends none.
	EventsPerS int
	// EventsReplay is EVENTS_REPLAY, how many of the newest events
	// /events?after=SEQ can replay, 0..1000000. Default 0: no replay (the
	// stream starts live whatever the cursor).
	EventsReplay int
	// UpgradesPerS is UPGRADES_PER_S, the /events handshake-rate capacity:
	// upgrades beyond it get 503. Default 0: no limit.
	UpgradesPerS int
	// CloseSpread is CLOSE_SPREAD_MS (full mode): each /events stream gets
	// its close frame 1001 at a random moment in [0, CLOSE_SPREAD_MS) after
	// the listener closed. Default 0: all at once.
	CloseSpread time.Duration
	// CloseDeadline is CLOSE_DEADLINE_MS (full mode), 1..4000: how long a
	// peer has to answer its close frame before its connection is
	// terminated. Default 2000.
	CloseDeadline time.Duration
	// AdmitDraining is UPGRADES_WHILE_DRAINING=accept (full mode): /events
	// upgrades that arrive while draining are accepted (and retired with
	// the others) instead of refused, as a server that only fails its
	// readiness check does (W1's contrast). Default refuse.
	AdmitDraining bool
	// Instance is INSTANCE, the name a proxy knows this replica by
	// ("replica-0:8080"; the runner sets it). /events answers its 101 with
	// it in record.UpstreamHeader, because a proxy applies no response
	// header rules to a 101 (Caddy's reverse_proxy skips them for
	// upgrades). Default "": no header. With WORKER=on it is also the
	// River client's ID (the hostname when empty).
	Instance string

	// Worker holds the queue worker's variables (WORKER=on; see
	// WorkerConfig).
	Worker WorkerConfig
}

// DefaultConfig returns the configuration used when no variable is set.
func DefaultConfig() Config {
	return Config{
		Mode:      ModeFull,
		Port:      8080,
		KeepAlive: 5000 * time.Millisecond,
		Sweep:     100 * time.Millisecond,
		DataDir:   "/data",

		EventsPerS:    defaultEventsPerS,
		CloseDeadline: defaultCloseDeadline,

		Worker: DefaultWorkerConfig(),
	}
}

// ConfigError is an invalid environment variable: its name, its value and
// what a valid value looks like.
type ConfigError struct {
	// Var is the variable name, for example "PORT".
	Var string
	// Value is the value as found.
	Value string
	// Reason says what was expected.
	Reason string
}

// Error implements error.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("invalid %s=%q: %s", e.Var, e.Value, e.Reason)
}

// ConfigFromEnv reads the configuration through getenv (os.Getenv in main).
// Unset and empty variables take their defaults. Every invalid variable is
// reported; the error joins one *ConfigError per variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	var errs []error
	if v := getenv("MODE"); v != "" {
		switch Mode(v) {
		case ModeNone, ModeClose, ModeFull:
			c.Mode = Mode(v)
		default:
			errs = append(errs, &ConfigError{Var: "MODE", Value: v, Reason: "must be none, close or full"})
		}
	}
	c.Host = getenv("LISTEN_HOST")
	if v := getenv("PORT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 65535 {
			errs = append(errs, &ConfigError{Var: "PORT", Value: v, Reason: "must be an integer in 0..65535"})
		} else {
			c.Port = n
		}
	}
	ms := []struct {
		name string
		dst  *time.Duration
		min  int
	}{
		{"DRAIN_MS", &c.Drain, 0},
		{"PRESTOP_MS", &c.PreStop, 0},
		{"KEEPALIVE_MS", &c.KeepAlive, 0},
		{"SWEEP_MS", &c.Sweep, 1},
		{"STARTUP_MS", &c.Startup, 0},
	}
	for _, m := range ms {
		v := getenv(m.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < m.min || n > maxMs {
			errs = append(errs, &ConfigError{Var: m.name, Value: v,
				Reason: fmt.Sprintf("must be an integer number of milliseconds in %d..%d", m.min, maxMs)})
			continue
		}
		*m.dst = time.Duration(n) * time.Millisecond
	}
	c.Instance = getenv("INSTANCE")
	if v := getenv("DATA_DIR"); v != "" {
		c.DataDir = v
	}
	errs = append(errs, c.wsFromEnv(getenv)...)
	errs = append(errs, c.Worker.fromEnv(getenv)...)
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return c, nil
}

// summary is the "up" event's msg.
func (c Config) summary(port int) string {
	host := c.Host
	if host == "" {
		host = "0.0.0.0"
	}
	return fmt.Sprintf("host=%s port=%d drain_ms=%d prestop_ms=%d keepalive_ms=%d sweep_ms=%d data_dir=%s",
		host, port, c.Drain.Milliseconds(), c.PreStop.Milliseconds(), c.KeepAlive.Milliseconds(),
		c.Sweep.Milliseconds(), c.DataDir)
}
