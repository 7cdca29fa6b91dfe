package queuejobs

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/internal/service"
	"github.com/shutdownlab/shutdownlab/jobs"
)

// database is the job queue's database as a run of load.kind jobs uses
// it: a PostgreSQL service container on the run's network, reached from
// this host for the schema and the ledger. The Docker one is dockerDB;
// the runner's fake-engine tests put a fake with these methods in its
// place (session service DatabaseService).
type database interface {
	// Image builds (or finds, by content hash) the service image.
	Image(ctx context.Context) (string, error)
	// Start runs the service (spec without its Image) and waits until it
	// answers; it returns the connection string from this host. A failed
	// start leaves no container.
	Start(ctx context.Context, spec service.PostgresSpec) (hostDSN string, err error)
	// Migrate brings River's schema and the harness's tables up to date.
	Migrate(ctx context.Context, dsn string) error
	// Account reads the ledger of the jobs with these ids (jobs.Account).
	Account(ctx context.Context, dsn string, ids []int64) (jobs.Ledger, error)
}

// DatabaseService is the job queue's database as a runner session
// service (runner.RegisterSessionService): one per Runner, read back with
// databaseOf.
const DatabaseService = "jobs-db"

// init registers the jobs load kind's driver and its database with the
// runner (the kind itself is registered with the scenarios in
// capability.go).
func init() {
	runner.RegisterSessionService(DatabaseService, func(eng *docker.Engine, log io.Writer) any {
		return &dockerDB{eng: eng, log: log}
	})
	runner.RegisterLoadDriver(LoadKind, func() runner.LoadDriver { return &driver{} })
}

// databaseOf is the session's job queue database (nil: none, as under a
// fake engine).
func databaseOf(s runner.Session) database {
	db, _ := s.Service(DatabaseService).(database)
	return db
}

// dockerDB is database on the Docker engine: the offline PostgreSQL image
// (images.PostgresService), started by internal/service.
type dockerDB struct {
	eng *docker.Engine
	log io.Writer

	mu  sync.Mutex
	ref string // the image, once built
}

// Image builds the service image once.
func (d *dockerDB) Image(ctx context.Context) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ref != "" {
		return d.ref, nil
	}
	ref, _, err := images.PostgresService(ctx, d.eng, d.log)
	if err != nil {
		return "", err
	}
	d.ref = ref
	return ref, nil
}

// Start runs PostgreSQL on its image.
func (d *dockerDB) Start(ctx context.Context, spec service.PostgresSpec) (string, error) {
	ref, err := d.Image(ctx)
	if err != nil {
		return "", err
	}
	spec.Image = ref
	pg, err := service.StartPostgres(ctx, d.eng, spec)
	if err != nil {
		return "", err
	}
	return pg.HostDSN(), nil
}

// Migrate runs jobs.Migrate on dsn.
func (d *dockerDB) Migrate(ctx context.Context, dsn string) error {
	return withPool(ctx, dsn, func(pool *pgxpool.Pool) error {
		_, err := jobs.Migrate(ctx, pool)
		return err
	})
}

// Account runs jobs.Account on dsn.
func (d *dockerDB) Account(ctx context.Context, dsn string, ids []int64) (l jobs.Ledger, err error) {
	err = withPool(ctx, dsn, func(pool *pgxpool.Pool) error {
		l, err = jobs.Account(ctx, pool, ids)
		return err
	})
	return l, err
}

// withPool runs f on a small pool on dsn, closed afterwards.
func withPool(ctx context.Context, dsn string, f func(*pgxpool.Pool) error) error {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	cfg.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	defer pool.Close()
	return f(pool)
}
