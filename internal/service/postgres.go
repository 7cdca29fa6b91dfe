// Package service starts the harness's service containers — today the
// PostgreSQL server the job queue (load.kind jobs) runs on — on a run's own
// Docker network, waits until they answer, and removes them on every exit
// path. Containers carry the engine's labels (managed, session, owner)
// plus LabelService, so `shutdownlab clean` finds orphans as it finds the
// runner's other containers.
package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/images"
)

// LabelService names the service a container provides ("postgres").
const LabelService = "shutdownlab.service"

// DefaultReadyTimeout bounds StartPostgres's wait for the first accepted
// connection (first start includes initdb).
const DefaultReadyTimeout = 60 * time.Second

// PostgresSpec describes a PostgreSQL service container.
type PostgresSpec struct {
	// Image is the image reference (images.PostgresService).
	Image string
	// Name is the container name; Network the (existing) network it joins
	// and Alias its extra DNS name there (e.g. "postgres"): a DSN for
	// containers on the network (Postgres.NetworkDSN) uses the alias.
	Name, Network, Alias string
	// Labels are extra labels (e.g. the run's); LabelService=postgres is
	// always set.
	Labels map[string]string
	// ReadyTimeout bounds the readiness wait (0: DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// Args are appended to postgres's command line ("-c", "key=value").
	Args []string
	// Password is the superuser's password, asked of every TCP peer
	// (scram-sha-256): a container on the network is no superuser by
	// being there. Empty: StartPostgres draws a random one.
	Password string
	// MemoryBytes and PidsLimit, when > 0, limit the container.
	MemoryBytes, PidsLimit int64
}

// Postgres is a started, ready PostgreSQL service container.
type Postgres struct {
	eng       *docker.Engine
	Container *docker.Container
	// Alias is the DNS name on Network; IP the container's address there,
	// which the host reaches directly (no published port).
	Alias, Network, IP string
	// Ready is the time from the start request to the first accepted
	// connection (initdb included on a fresh container).
	Ready time.Duration
	// Password is the superuser's (PostgresSpec.Password or the one
	// StartPostgres drew).
	Password string
}

// NewPassword draws a random password: 32 hex digits from crypto/rand.
func NewPassword() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand's documentation)
	return hex.EncodeToString(b)
}

// StartPostgres runs spec's container and waits until it accepts a
// connection and answers a query (a pg_isready equivalent over pgx from
// the host to the container's address on spec.Network), for at most
// ReadyTimeout. Every TCP peer must give the password (scram-sha-256):
// the image refuses to start without one. On any failure the container is removed before the error
// is returned, and the error quotes its last log lines.
func StartPostgres(ctx context.Context, eng *docker.Engine, spec PostgresSpec) (*Postgres, error) {
	if spec.Image == "" || spec.Name == "" || spec.Network == "" {
		return nil, errors.New("postgres service: spec needs Image, Name and Network")
	}
	timeout := spec.ReadyTimeout
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	labels := map[string]string{LabelService: "postgres"}
	maps.Copy(labels, spec.Labels)
	labels[LabelService] = "postgres"
	var aliases []string
	if spec.Alias != "" {
		aliases = []string{spec.Alias}
	}
	if spec.Password == "" {
		spec.Password = NewPassword()
	}
	t0 := time.Now()
	c, err := eng.Run(ctx, docker.ContainerSpec{
		Name: spec.Name, Image: spec.Image, Cmd: spec.Args, Labels: labels,
		Network: spec.Network, Aliases: aliases, Env: []string{images.PostgresPasswordEnv + "=" + spec.Password},
		MemoryBytes: spec.MemoryBytes, PidsLimit: spec.PidsLimit,
	})
	if err != nil {
		return nil, fmt.Errorf("postgres service: %w", err)
	}
	p := &Postgres{eng: eng, Container: c, Alias: spec.Alias, Network: spec.Network, Password: spec.Password}
	if err := p.waitReady(ctx, timeout); err != nil {
		return nil, errors.Join(err, p.Remove(ctx))
	}
	p.Ready = time.Since(t0)
	return p, nil
}

// waitReady finds the container's address and polls it with pgx until a
// query succeeds, the container exits, or timeout passes.
func (p *Postgres) waitReady(ctx context.Context, timeout time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		st, err := p.eng.Inspect(wctx, p.Container.ID)
		switch {
		case err != nil:
			last = err
		case st.Exited():
			return p.failure(ctx, fmt.Errorf("exited with code %d before accepting connections", st.ExitCode))
		case st.IP(p.Network) == "":
			last = fmt.Errorf("no address on network %s yet", p.Network)
		default:
			p.IP = st.IP(p.Network)
			if last = Ping(wctx, p.HostDSN()); last == nil {
				return nil
			}
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return fmt.Errorf("postgres service %s: %w", p.Container.Name, ctx.Err())
			}
			return p.failure(ctx, fmt.Errorf("not ready within %s (last attempt: %v)", timeout, last))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// failure is err with the container's name and its last log lines.
func (p *Postgres) failure(ctx context.Context, err error) error {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	out, errOut, lerr := p.eng.LogsAll(lctx, p.Container.ID)
	if lerr != nil {
		return fmt.Errorf("postgres service %s: %w (logs unavailable: %v)", p.Container.Name, err, lerr)
	}
	return fmt.Errorf("postgres service %s: %w; last log lines:\n%s", p.Container.Name, err, LastLines(string(out)+string(errOut), 15))
}

// LastLines is the last n non-empty lines of s, joined by newlines.
func LastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Ping connects to dsn and runs SELECT 1, each attempt bounded to 2 s.
func Ping(ctx context.Context, dsn string) error {
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(pctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(pctx))
	var one int
	return conn.QueryRow(pctx, "SELECT 1").Scan(&one)
}

// HostDSN is the connection string from this host: the container's
// address on the network, user postgres with the password, no TLS.
func (p *Postgres) HostDSN() string { return DSN(p.IP, p.Password) }

// NetworkDSN is the connection string for containers on the network (by
// alias, else by container name).
func (p *Postgres) NetworkDSN() string {
	if p.Alias != "" {
		return DSN(p.Alias, p.Password)
	}
	return DSN(p.Container.Name, p.Password)
}

// DSN is the service's connection string for host with password.
func DSN(host, password string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(images.PostgresUser, password),
		Host: fmt.Sprintf("%s:%d", host, images.PostgresPort), Path: "/" + images.PostgresDB,
		RawQuery: "sslmode=disable&connect_timeout=5"}
	return u.String()
}

// Remove stops the container (its STOPSIGNAL SIGINT is postgres's fast
// shutdown; 10 s, then SIGKILL) and removes it, bounded to 30 s even when
// ctx is already cancelled. Safe to call twice.
func (p *Postgres) Remove(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	t := 10
	stopErr := p.eng.Stop(rctx, p.Container.ID, &t)
	if err := p.eng.Remove(rctx, p.Container.ID); err != nil {
		return fmt.Errorf("postgres service: %w", errors.Join(err, stopErr))
	}
	return nil
}
