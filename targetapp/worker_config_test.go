package targetapp

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestWorkerConfigFromEnv(t *testing.T) {
	def := DefaultWorkerConfig()
	with := func(f func(*WorkerConfig)) WorkerConfig { w := def; f(&w); return w }
	const dsn = "postgres://postgres@10.0.0.5:5432/shutdownlab?sslmode=disable"
	tests := []struct {
		name    string
		env     map[string]string
		want    WorkerConfig
		wantErr []string // substrings of the error: variable and value
		notErr  string   // must not appear in the error (a password)
	}{
		// Nothing set: off, with every default.
		{name: "defaults", want: def},
		{name: "off explicit", env: map[string]string{"WORKER": "off"}, want: def},
		// On needs DATABASE_URL.
		{name: "on", env: map[string]string{"WORKER": "on", "DATABASE_URL": dsn},
			want: with(func(w *WorkerConfig) { w.On = true; w.DatabaseURL = dsn })},
		{name: "on without url", env: map[string]string{"WORKER": "on"}, wantErr: []string{"DATABASE_URL", "required with WORKER=on"}},
		// Every variable set to a valid value.
		{name: "all set", env: map[string]string{"WORKER": "on", "DATABASE_URL": dsn, "WORKER_CONCURRENCY": "4",
			"WORKER_DEADLINE_MS": "250", "RESCUE_AFTER_MS": "60000", "POOL_CLOSE": "first", "REPEAT_SIGNAL": "restart"},
			want: WorkerConfig{On: true, DatabaseURL: dsn, Concurrency: 4, Deadline: 250 * time.Millisecond,
				RescueAfter: time.Minute, PoolClose: PoolCloseFirst, RepeatSignal: RepeatRestart}},
		// A zero deadline is valid: cancel running jobs at the signal.
		{name: "deadline zero", env: map[string]string{"WORKER_DEADLINE_MS": "0"}, want: with(func(w *WorkerConfig) { w.Deadline = 0 })},
		// The variables are checked with WORKER=off too.
		{name: "bad worker", env: map[string]string{"WORKER": "yes"}, wantErr: []string{"WORKER", `"yes"`, "off or on"}},
		{name: "worker case", env: map[string]string{"WORKER": "ON"}, wantErr: []string{"WORKER", `"ON"`}},
		{name: "concurrency zero", env: map[string]string{"WORKER_CONCURRENCY": "0"}, wantErr: []string{"WORKER_CONCURRENCY", `"0"`, "1..1000"}},
		{name: "concurrency text", env: map[string]string{"WORKER_CONCURRENCY": "two"}, wantErr: []string{"WORKER_CONCURRENCY", `"two"`}},
		{name: "deadline negative", env: map[string]string{"WORKER_DEADLINE_MS": "-1"}, wantErr: []string{"WORKER_DEADLINE_MS", `"-1"`}},
		{name: "deadline unit", env: map[string]string{"WORKER_DEADLINE_MS": "5s"}, wantErr: []string{"WORKER_DEADLINE_MS", `"5s"`}},
		{name: "rescue zero", env: map[string]string{"RESCUE_AFTER_MS": "0"}, wantErr: []string{"RESCUE_AFTER_MS", `"0"`}},
		{name: "rescue huge", env: map[string]string{"RESCUE_AFTER_MS": "86400001"}, wantErr: []string{"RESCUE_AFTER_MS"}},
		{name: "bad pool close", env: map[string]string{"POOL_CLOSE": "early"}, wantErr: []string{"POOL_CLOSE", `"early"`, "last or first"}},
		{name: "bad repeat", env: map[string]string{"REPEAT_SIGNAL": "again"}, wantErr: []string{"REPEAT_SIGNAL", `"again"`, "ignore or restart"}},
		// A DATABASE_URL that does not parse is reported without its password.
		{name: "bad url", env: map[string]string{"DATABASE_URL": "postgres://u:s3cretpw@host:notaport/db"},
			wantErr: []string{"DATABASE_URL", "xxxxx"}, notErr: "s3cretpw"},
		// Every bad variable is reported.
		{name: "two bad", env: map[string]string{"WORKER_CONCURRENCY": "x", "POOL_CLOSE": "y"},
			wantErr: []string{"WORKER_CONCURRENCY", "POOL_CLOSE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConfigFromEnv(func(k string) string { return tt.env[k] })
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error, config %+v", got.Worker)
				}
				var ce *ConfigError
				if !errors.As(err, &ce) {
					t.Errorf("error %v is not a *ConfigError", err)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				if tt.notErr != "" && strings.Contains(err.Error(), tt.notErr) {
					t.Errorf("error %q quotes %q", err, tt.notErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Worker != tt.want {
				t.Errorf("got %+v\nwant %+v", got.Worker, tt.want)
			}
		})
	}
}

func TestWorkerSummary(t *testing.T) {
	w := DefaultWorkerConfig()
	want := "concurrency=2 deadline_ms=5000 rescue_after_ms=3600000 pool_close=last repeat_signal=ignore"
	if got := w.summary(); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

func TestDBHostAndRedact(t *testing.T) {
	tests := []struct {
		dsn, host, redacted string
	}{
		{"postgres://postgres@172.18.0.2:5432/shutdownlab?sslmode=disable", "172.18.0.2:5432",
			"postgres://postgres@172.18.0.2:5432/shutdownlab?sslmode=disable"},
		{"postgres://app:hunter2@db.example:6543/x", "db.example:6543", "postgres://app:xxxxx@db.example:6543/x"},
		{"host=pg port=5433 user=a password=hunter2", "pg:5433", "host=pg port=5433 user=a password=xxxxx"},
		{"postgres://u@[::1]:5432/x", "[::1]:5432", "postgres://u@[::1]:5432/x"},
		{"postgres://u:p@host:bad/x", "?", "postgres://u:xxxxx@host:bad/x"},
	}
	for _, tt := range tests {
		if got := dbHost(tt.dsn); got != tt.host {
			t.Errorf("dbHost(%q) = %q, want %q", tt.dsn, got, tt.host)
		}
		if got := redactURL(tt.dsn); got != tt.redacted {
			t.Errorf("redactURL(%q) = %q, want %q", tt.dsn, got, tt.redacted)
		}
	}
	if got := redact("failed: password hunter2 rejected", "postgres://app:hunter2@db/x"); strings.Contains(got, "hunter2") {
		t.Errorf("redact left the password: %q", got)
	}
}
