package runner

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/service"
	"github.com/shutdownlab/shutdownlab/jobs"
)

// jobsDB is the job queue's database as a run of load.kind jobs uses it:
// a PostgreSQL service container on the run's network, reached from this
// host for the schema and the ledger. The Docker one is dockerJobsDB; unit
// tests give the runner a fake.
type jobsDB interface {
	// image builds (or finds, by content hash) the service image.
	image(ctx context.Context) (string, error)
	// start runs the service (spec without its Image) and waits until it
	// answers; it returns the connection string from this host. A failed
	// start leaves no container.
	start(ctx context.Context, spec service.PostgresSpec) (hostDSN string, err error)
	// migrate brings River's schema and the harness's tables up to date.
	migrate(ctx context.Context, dsn string) error
	// account reads the ledger of the jobs with these ids (jobs.Account).
	account(ctx context.Context, dsn string, ids []int64) (jobs.Ledger, error)
}

// jobsDBService is the job queue's database as a session service
// (services.go): one per Runner, read back with jobsDBOf.
const jobsDBService = "jobs-db"

func init() {
	sessionServices.register(jobsDBService, func(eng *docker.Engine, log progressWriter) any {
		return &dockerJobsDB{eng: eng, log: log}
	})
}

// jobsDBOf is r's job queue database (nil: none, as under a fake engine).
func jobsDBOf(r *Runner) jobsDB { return serviceOf[jobsDB](r, jobsDBService) }

// dockerJobsDB is jobsDB on the Docker engine: the offline PostgreSQL image
// (images.PostgresService), started by internal/service.
type dockerJobsDB struct {
	eng *docker.Engine
	log io.Writer

	mu  sync.Mutex
	ref string // the image, once built
}

func (d *dockerJobsDB) image(ctx context.Context) (string, error) {
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

func (d *dockerJobsDB) start(ctx context.Context, spec service.PostgresSpec) (string, error) {
	ref, err := d.image(ctx)
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

func (d *dockerJobsDB) migrate(ctx context.Context, dsn string) error {
	return withPool(ctx, dsn, func(pool *pgxpool.Pool) error {
		_, err := jobs.Migrate(ctx, pool)
		return err
	})
}

func (d *dockerJobsDB) account(ctx context.Context, dsn string, ids []int64) (l jobs.Ledger, err error) {
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
