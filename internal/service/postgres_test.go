package service_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/service"
	"github.com/shutdownlab/shutdownlab/internal/service/servicetest"
)

func TestLastLines(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"a\n\nb\n", 3, "a\nb"},
		{"a\nb\nc\nd\n", 2, "c\nd"},
	}
	for _, tt := range tests {
		if got := service.LastLines(tt.in, tt.n); got != tt.want {
			t.Errorf("LastLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestDSN(t *testing.T) {
	for _, tt := range []struct{ host, pw, want string }{
		{"postgres", "0a1b", "postgres://postgres:0a1b@postgres:5432/postgres?sslmode=disable&connect_timeout=5"},
		{"10.0.0.2", "p@ss/w:rd", "postgres://postgres:p%40ss%2Fw%3Ard@10.0.0.2:5432/postgres?sslmode=disable&connect_timeout=5"},
	} {
		if got := service.DSN(tt.host, tt.pw); got != tt.want {
			t.Errorf("DSN(%q, %q) = %q, want %q", tt.host, tt.pw, got, tt.want)
		}
	}
	a, b := service.NewPassword(), service.NewPassword()
	if len(a) != 32 || a == b {
		t.Errorf("NewPassword gave %q then %q: want 32 random hex digits each time", a, b)
	}
}

// TestPostgresService starts the offline PostgreSQL image, checks it runs
// as the non-root user with the entrypoint's settings, and that Remove
// leaves nothing behind (RequireDocker reports leaks).
func TestPostgresService(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	pg := servicetest.Postgres(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pg.HostDSN())
	if err != nil {
		t.Fatalf("connect %s: %v", pg.HostDSN(), err)
	}
	defer conn.Close(ctx)
	for _, q := range []struct{ sql, want string }{
		{"SELECT current_user", "postgres"},
		{"SHOW listen_addresses", "0.0.0.0"},
		{"SHOW data_directory", "/var/lib/postgresql/data"},
		{"SHOW server_encoding", "UTF8"},
		{"SHOW lc_collate", "C"},
		{"SHOW TimeZone", "UTC"},
		{"SELECT count(*)::text FROM pg_hba_file_rules WHERE address IS NOT NULL AND address <> 'samenet'", "0"},
		{"SELECT string_agg(DISTINCT auth_method, ',') FROM pg_hba_file_rules WHERE type = 'host'", "scram-sha-256"},
		{"SHOW password_encryption", "scram-sha-256"},
	} {
		var got string
		if err := conn.QueryRow(ctx, q.sql).Scan(&got); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
		if got != q.want {
			t.Errorf("%s = %q, want %q", q.sql, got, q.want)
		}
	}
	// A peer on the network without the password, or with another, is
	// refused: no superuser by being on the network.
	for _, dsn := range []string{service.DSN(pg.IP, ""), service.DSN(pg.IP, service.NewPassword())} {
		if err := service.Ping(ctx, dsn); err == nil || !strings.Contains(err.Error(), "password authentication failed") {
			t.Errorf("connect with a wrong password: %v, want password authentication failed", err)
		}
	}
	st, err := eng.Inspect(ctx, pg.Container.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Labels[service.LabelService] != "postgres" || st.Labels["shutdownlab.session"] != eng.Session() {
		t.Errorf("labels = %v, want %s=postgres and the session", st.Labels, service.LabelService)
	}
	if err := pg.Remove(ctx); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	// Remove is idempotent: the cleanup's second call is no error.
	if err := pg.Remove(ctx); err != nil {
		t.Fatalf("second Remove: %v", err)
	}
}

// TestPostgresServiceFailure: a server that cannot start (an unknown
// setting) gives an error quoting postgres's own complaint, and the
// container is removed (RequireDocker reports any leak).
func TestPostgresServiceFailure(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	ref := servicetest.PostgresImage(t, eng)
	net := servicetest.Network(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := service.StartPostgres(ctx, eng, service.PostgresSpec{
		Image: ref, Name: eng.Session() + "-pg", Network: net, Alias: "postgres",
		Args: []string{"-c", "no_such_setting=1"},
	})
	if err == nil {
		t.Fatal("StartPostgres with an unknown setting succeeded")
	}
	for _, want := range []string{"exited with code", "no_such_setting"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}
