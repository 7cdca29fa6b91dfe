package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
)

// collect reads back what the run produced: each replica's state, logs,
// lifecycle events, ledger and job log, and the agent's summary.
func (x *run) collect(ctx context.Context) error {
	eng := x.r.eng
	var errs []error
	for i, c := range x.obj.replicas {
		alias := fmt.Sprintf("replica-%d", i)
		rep := record.Replica{Name: alias, Image: x.target.ref, Runtime: x.target.runtime, Init: x.spec.Target.Init, Env: envMap(x.targetEnv(i)),
			EnvOverridden: envOverrides(x.target.imageEnv, x.spec.Target.Env)}
		st, err := eng.Inspect(ctx, c.ID)
		if err != nil {
			errs = append(errs, err)
			x.meta.Replicas = append(x.meta.Replicas, rep)
			continue
		}
		rep.StopTimeoutS = st.StopTimeout
		rep.Init = st.Init
		acted := x.meta.Action != nil && i == x.meta.Action.Replica && x.obs.done
		exited, final := st.Exited(), st
		stopped := x.caps.ledgerStops[i] // stopped for the ledger: running until then
		switch {
		case acted:
			exited, final = x.obs.exited, x.obs.state
		case stopped > 0:
			exited = false
		}
		if exited {
			code := final.ExitCode
			rep.Exited, rep.ExitCode = true, &code
			rep.ExitedNs = final.FinishedAt.UnixNano()
			rep.OOMKilled = final.OOMKilled
		}
		stdout, stderr, err := eng.LogsAll(ctx, c.ID)
		if err != nil {
			errs = append(errs, err)
		}
		rep.Events = eventsBefore(parseLifecycle(stdout), stopped)
		errs = append(errs, os.WriteFile(filepath.Join(x.dir, resultdir.AppLog(alias)), append(stdout, stderr...), 0o644))
		rep.Ledger, err = x.readBack(ctx, c.ID, path.Join(record.DefaultDataDir, record.LedgerFile), resultdir.LedgerLog(alias))
		errs = append(errs, err)
		rep.HandlerJobLog, err = x.readBack(ctx, c.ID, path.Join(record.DefaultDataDir, record.HandlerJobFile), resultdir.HandlerJobLog(alias))
		errs = append(errs, err)
		x.meta.Replicas = append(x.meta.Replicas, rep)
	}
	errs = append(errs, x.collectProxy(ctx))
	x.load.collect(&x.meta, x.stream)
	return errors.Join(errs...)
}

// readBack copies a file out of a container into the run directory; a file
// the target never wrote is normal and yields nothing.
func (x *run) readBack(ctx context.Context, id, path, saveAs string) ([]string, error) {
	b, err := x.r.eng.CopyFileFrom(ctx, id, path)
	if errors.Is(err, docker.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(x.dir, saveAs), b, 0o644); err != nil {
		return nil, err
	}
	return splitLines(b), nil
}

// teardown removes every container and the network of this run.
func (x *run) teardown(ctx context.Context) error {
	_, err := x.r.eng.Sweep(ctx, map[string]string{"shutdownlab.run": x.name})
	return err
}
