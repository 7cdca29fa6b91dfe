package targetapp

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestConfigFromEnv(t *testing.T) {
	def := DefaultConfig()
	with := func(f func(*Config)) Config { c := def; f(&c); return c }
	tests := []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr []string // substrings of the error: variable and value
	}{
		// Nothing set: every default, mode full.
		{name: "defaults", env: nil, want: def},
		// Empty values count as unset.
		{name: "empty is unset", env: map[string]string{"MODE": "", "PORT": ""}, want: def},
		// Every variable set to a valid value.
		{name: "all set", env: map[string]string{"MODE": "close", "LISTEN_HOST": "127.0.0.1", "PORT": "9000",
			"DRAIN_MS": "5000", "PRESTOP_MS": "2000", "KEEPALIVE_MS": "15000", "SWEEP_MS": "50", "STARTUP_MS": "3000", "DATA_DIR": "/tmp/x",
			"EVENTS_PER_S": "0", "EVENTS_REPLAY": "500", "UPGRADES_PER_S": "200", "CLOSE_SPREAD_MS": "3000",
			"CLOSE_DEADLINE_MS": "4000", "UPGRADES_WHILE_DRAINING": "accept",
			"INSTANCE": "replica-1:9000"},
			want: Config{Mode: ModeClose, Host: "127.0.0.1", Port: 9000, Drain: 5 * time.Second,
				PreStop: 2 * time.Second, KeepAlive: 15 * time.Second, Sweep: 50 * time.Millisecond, Startup: 3 * time.Second, DataDir: "/tmp/x",
				EventsReplay: 500, UpgradesPerS: 200, CloseSpread: 3 * time.Second, CloseDeadline: 4 * time.Second,
				AdmitDraining: true, Instance: "replica-1:9000", Worker: DefaultWorkerConfig()}},
		// none is a valid mode.
		{name: "mode none", env: map[string]string{"MODE": "none"}, want: with(func(c *Config) { c.Mode = ModeNone })},
		// PORT 0 lets the kernel choose.
		{name: "port 0", env: map[string]string{"PORT": "0"}, want: with(func(c *Config) { c.Port = 0 })},
		// KEEPALIVE_MS 0 means no idle timeout; DRAIN_MS 0 no deadline.
		{name: "zeros", env: map[string]string{"KEEPALIVE_MS": "0", "DRAIN_MS": "0"},
			want: with(func(c *Config) { c.KeepAlive = 0 })},
		// Unknown mode, including wrong case.
		{name: "bad mode", env: map[string]string{"MODE": "Full"}, wantErr: []string{"MODE", `"Full"`}},
		// Port not a number, and out of range.
		{name: "port text", env: map[string]string{"PORT": "http"}, wantErr: []string{"PORT", `"http"`}},
		{name: "port range", env: map[string]string{"PORT": "65536"}, wantErr: []string{"PORT", `"65536"`}},
		// Negative and fractional milliseconds.
		{name: "negative drain", env: map[string]string{"DRAIN_MS": "-1"}, wantErr: []string{"DRAIN_MS", `"-1"`}},
		{name: "fraction prestop", env: map[string]string{"PRESTOP_MS": "1.5"}, wantErr: []string{"PRESTOP_MS", `"1.5"`}},
		{name: "keepalive unit", env: map[string]string{"KEEPALIVE_MS": "5s"}, wantErr: []string{"KEEPALIVE_MS", `"5s"`}},
		// A zero sweep interval would spin: rejected.
		{name: "sweep zero", env: map[string]string{"SWEEP_MS": "0"}, wantErr: []string{"SWEEP_MS", `"0"`}},
		// Beyond 24 h.
		{name: "drain huge", env: map[string]string{"DRAIN_MS": "86400001"}, wantErr: []string{"DRAIN_MS"}},
		// The /events variables: bounds named in the error.
		{name: "events rate huge", env: map[string]string{"EVENTS_PER_S": "1001"}, wantErr: []string{"EVENTS_PER_S", "0..1000"}},
		{name: "bad upgrades while draining", env: map[string]string{"UPGRADES_WHILE_DRAINING": "yes"}, wantErr: []string{"UPGRADES_WHILE_DRAINING", `"yes"`}},
		{name: "close deadline zero", env: map[string]string{"CLOSE_DEADLINE_MS": "0"}, wantErr: []string{"CLOSE_DEADLINE_MS", "1..4000"}},
		{name: "close deadline past the library's", env: map[string]string{"CLOSE_DEADLINE_MS": "5000"}, wantErr: []string{"CLOSE_DEADLINE_MS"}},
		{name: "negative spread", env: map[string]string{"CLOSE_SPREAD_MS": "-1"}, wantErr: []string{"CLOSE_SPREAD_MS", `"-1"`}},
		// Every bad variable is reported, not only the first.
		{name: "two bad", env: map[string]string{"PORT": "x", "SWEEP_MS": "y"}, wantErr: []string{"PORT", "SWEEP_MS", `"y"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConfigFromEnv(func(k string) string { return tt.env[k] })
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error, got %+v", got)
				}
				var ce *ConfigError
				if !errors.As(err, &ce) {
					t.Errorf("error %v is not a *ConfigError", err)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %s", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestConfigSummary(t *testing.T) {
	c := DefaultConfig()
	got := c.summary(8080)
	want := "host=0.0.0.0 port=8080 drain_ms=0 prestop_ms=0 keepalive_ms=5000 sweep_ms=100 data_dir=/data"
	if got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}
