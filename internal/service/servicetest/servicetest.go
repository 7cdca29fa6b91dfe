// Package servicetest starts service containers for tests that need the
// real Docker daemon (see internal/docker/dockertest: such tests fail
// loudly without Docker unless SHUTDOWNLAB_SKIP_DOCKER=1).
package servicetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/service"
)

var imageMu sync.Mutex

// PostgresImage builds (or reuses) the PostgreSQL service image.
func PostgresImage(t testing.TB, eng *docker.Engine) string {
	t.Helper()
	imageMu.Lock()
	defer imageMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ref, _, err := images.PostgresService(ctx, eng, testLog{t})
	if err != nil {
		t.Fatalf("building the postgres image: %v", err)
	}
	return ref
}

// Network creates a network named after the engine's session and removes
// it at cleanup (after the containers registered later are removed).
func Network(t testing.TB, eng *docker.Engine) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := eng.Session() + "-net"
	if _, err := eng.CreateNetwork(ctx, name, nil); err != nil {
		t.Fatalf("creating network: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := eng.RemoveNetwork(ctx, name); err != nil {
			t.Errorf("removing network %s: %v", name, err)
		}
	})
	return name
}

// Postgres starts a ready PostgreSQL service (alias "postgres") on a new
// network and removes both at cleanup.
func Postgres(t testing.TB, eng *docker.Engine) *service.Postgres {
	t.Helper()
	ref := PostgresImage(t, eng)
	net := Network(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, err := service.StartPostgres(ctx, eng, service.PostgresSpec{
		Image: ref, Name: eng.Session() + "-postgres", Network: net, Alias: "postgres",
	})
	if err != nil {
		t.Fatalf("starting postgres: %v", err)
	}
	t.Cleanup(func() {
		if err := pg.Remove(context.Background()); err != nil {
			t.Errorf("removing postgres: %v", err)
		}
	})
	t.Logf("postgres %s ready at %s in %s", pg.Container.Name, pg.IP, pg.Ready.Round(time.Millisecond))
	return pg
}

type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) { l.t.Logf("%s", p); return len(p), nil }
