package reproduce

import (
	"context"
	"errors"
	"strings"

	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// DockerRunner runs scenarios against the Docker engine with
// internal/runner. A runner.Runner's output root and --set list are fixed
// when it is made, so DockerRunner keeps one per distinct pair (images are
// reused by content hash, so the extra ones cost seconds). Close it when
// done.
type DockerRunner struct {
	progress runner.Progress
	runners  map[string]*runner.Runner
}

var _ ScenarioRunner = (*DockerRunner)(nil)

// NewDockerRunner returns a DockerRunner reporting run progress to p (nil:
// none). It connects to Docker on first use.
func NewDockerRunner(p runner.Progress) *DockerRunner {
	return &DockerRunner{progress: p, runners: map[string]*runner.Runner{}}
}

// RunScenario runs sc with sets, writing its result directory under out.
func (d *DockerRunner) RunScenario(ctx context.Context, sc *scenarios.Scenario, out string, sets []string) (Outcome, error) {
	key := out + "\x00" + strings.Join(sets, "\x00")
	r := d.runners[key]
	if r == nil {
		var err error
		r, err = runner.New(ctx, runner.Options{Out: out, Sets: sets, Progress: d.progress})
		if err != nil {
			return Outcome{}, err
		}
		d.runners[key] = r
	}
	oc, err := r.RunScenario(ctx, sc)
	return Outcome{Dir: oc.Dir, Runs: oc.Runs, Invalid: oc.Invalid, Incomplete: oc.Incomplete}, err
}

// Close releases every runner's engine connection.
func (d *DockerRunner) Close() error {
	var errs []error
	for k, r := range d.runners {
		errs = append(errs, r.Close())
		delete(d.runners, k)
	}
	return errors.Join(errs...)
}
