package runner

import (
	"context"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Registers this file's action kind with the runner (registry.go).
func init() { actions.register(scenarios.ActionSignal, actionDef{deliver: (*run).sendSignal}) }

// sendSignal delivers action kind signal: docker kill -s action.stop_signal to
// replica c, timed around the call. Nothing outlives it.
func (x *run) sendSignal(ctx context.Context, c *docker.Container, rec *record.Action) (chan stopResult, error) {
	rec.SentNs = time.Now().UnixNano()
	err := x.r.eng.Kill(ctx, c.ID, x.spec.Action.Signal)
	rec.ReturnedNs = time.Now().UnixNano()
	return nil, err
}
