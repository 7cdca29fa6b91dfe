package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/kubeapi"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Options configure a Runner.
type Options struct {
	// Out is the root under which each scenario gets its own result
	// directory (default "results/runs").
	Out string
	// Sets are --set key=value overrides applied to every scenario.
	Sets []string
	// Progress receives progress lines (default: Discard).
	Progress Progress
	// ModuleDir is the source tree the images are compiled from ("" = the
	// sources built into this binary, see package shutdownlab: the working
	// directory plays no part).
	ModuleDir string
	// Now is the clock used for directory names (default time.Now).
	Now func() time.Time
	// Kube selects the cluster of platform kubernetes (--kubeconfig,
	// --context; zero: the usual kubeconfig rules and its current
	// context). It is read only when a scenario runs there.
	Kube kubeapi.Config
	// Registry is where platform kubernetes pushes the local images its
	// pods run (--registry HOST[:PORT][/PREFIX]); "": the pods name the
	// local references, for images the nodes have or can pull.
	Registry string
}

// Runner runs scenarios against one Docker engine. Create it with New and
// Close it when done.
type Runner struct {
	opts Options
	// eng is the container runtime runs use: dock, or a fake in tests.
	eng engine
	// dock is the Docker engine (nil under a fake): Engine, Close.
	dock *docker.Engine
	// overlap lists other sessions' containers (dock's client).
	overlap overlapLister
	info    docker.Info
	// imgs builds the images runs need, each on first use (images.Cache).
	imgs imageSource
	// services are the capabilities' session services by name
	// (services.go): the job queue's database, Swarm's orchestrator.
	services map[string]any
	seq      int // run counter for unique names within the session
	// noted holds the notes already printed once for this runner.
	noted map[string]bool
}

// New connects to the Docker engine and builds (or reuses, by content
// hash) the target and load agent images.
func New(ctx context.Context, opts Options) (*Runner, error) {
	if opts.Out == "" {
		opts.Out = filepath.Join("results", "runs")
	}
	if opts.Progress == nil {
		opts.Progress = Discard
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	eng, err := docker.New(ctx)
	if err != nil {
		return nil, err
	}
	cache := images.NewCache(eng, opts.ModuleDir, progressWriter{opts.Progress})
	r := &Runner{opts: opts, eng: eng, dock: eng, overlap: eng.Client(), imgs: cache,
		services: newServices(eng, progressWriter{opts.Progress})}
	if r.info, err = eng.Info(ctx); err != nil {
		eng.Close()
		return nil, err
	}
	if _, _, err = cache.Project(ctx); err != nil {
		eng.Close()
		return nil, err
	}
	return r, nil
}

// progressWriter adapts Progress.Logf to an io.Writer for image build lines.
type progressWriter struct{ p Progress }

func (w progressWriter) Write(b []byte) (int, error) {
	w.p.Logf("%s", trimNL(string(b)))
	return len(b), nil
}

func trimNL(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

// Close releases the engine connection. It does not remove images.
func (r *Runner) Close() error {
	if r.dock == nil {
		return nil
	}
	return r.dock.Close()
}

// Engine returns the runner's Docker engine.
func (r *Runner) Engine() *docker.Engine { return r.dock }

// Outcome sums up one scenario's runs.
type Outcome struct {
	// Dir is the scenario's result directory.
	Dir string
	// Runs, Invalid and Incomplete count runs.
	Runs, Invalid, Incomplete int
}

// RunScenario expands sc into variants, runs each variant's repetitions and
// writes every run under a fresh result directory. It returns an error only
// when nothing could be measured at all (bad --set, an image missing or not
// buildable, results dir not writable: then no result directory is left,
// Outcome.Dir is ""), or when a run's events.json cannot be written;
// invalid runs are counted in the Outcome. When ctx is cancelled (Ctrl-C)
// the current run is cut short, cleaned up and kept as incomplete, and no
// further runs start.
func (r *Runner) RunScenario(ctx context.Context, sc *scenarios.Scenario) (Outcome, error) {
	variants, err := sc.Expand(r.opts.Sets)
	if err != nil {
		return Outcome{}, err
	}
	// Build the proxy and target images before any run starts, and before
	// anything is written: a cold build takes seconds to minutes and must
	// not count as set-up, and a scenario that cannot start leaves no
	// result directory.
	if err := r.prepareImages(ctx, variants); err != nil {
		return Outcome{}, err
	}
	if ctx.Err() != nil {
		return Outcome{}, nil
	}
	dir, err := resultdir.New(r.opts.Out, sc.Name(), r.opts.Now())
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Dir: dir}
	if err := resultdir.WriteFileAtomic(filepath.Join(dir, resultdir.ScenarioFile), sc.Raw()); err != nil {
		return out, err
	}
	refs := make([]resultdir.VariantRef, len(variants))
	for i, v := range variants {
		refs[i] = resultdir.VariantRef{Label: v.Label, Slug: v.Slug}
	}
	if err := resultdir.WriteVariants(dir, refs); err != nil {
		return out, err
	}
	// Before the first run: a harness killed mid-run leaves no events.json
	// or summary.json, and this is then what names the scenario and the
	// values it ran with.
	if err := writeEffective(dir, sc.Name(), r.opts.Sets, variants); err != nil {
		return out, err
	}
	fp := r.fingerprint()
	for _, v := range variants {
		if d, err := newLoadDriver(v.Spec.Load.Kind); err == nil {
			d.announce(r.opts.Progress, v)
		}
		for i := 1; i <= v.Spec.Runs; i++ {
			if ctx.Err() != nil {
				return out, nil
			}
			r.opts.Progress.RunStart(sc.Name(), v.Label, i, v.Spec.Runs, v.Spec.Load.Duration.D())
			meta := r.runOnce(ctx, v, i, resultdir.RunDir(dir, v.Slug, i))
			meta.Fingerprint = fp
			out.Runs++
			if !meta.Valid {
				out.Invalid++
			}
			if meta.Incomplete {
				out.Incomplete++
			}
			// The outcome first: on a full disk events.json fails too.
			r.opts.Progress.RunEnd(runLine(meta, loadOutcome(v.Spec.Load.Kind, meta)))
			if err := resultdir.WriteJSON(filepath.Join(resultdir.RunDir(dir, v.Slug, i), resultdir.EventsFile), meta); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// writeEffective writes resultdir.EffectiveFile into dir: the scenario's
// name, the --set overrides and every variant's resolved spec, as run.
func writeEffective(dir, scenario string, sets []string, variants []scenarios.Variant) error {
	e := resultdir.Effective{Scenario: scenario, Sets: sets}
	for _, v := range variants {
		spec, err := json.Marshal(v.Spec)
		if err != nil {
			return fmt.Errorf("%s: variant %s: %w", resultdir.EffectiveFile, v.Label, err)
		}
		e.Variants = append(e.Variants, resultdir.EffectiveVariant{Label: v.Label, Spec: spec})
	}
	return resultdir.WriteEffective(dir, e)
}

// loadOutcome is what the load driver of kind says of a run (its part
// of the run's one-line outcome).
func loadOutcome(kind scenarios.LoadKind, m record.Meta) string {
	if d, err := newLoadDriver(kind); err == nil {
		return d.outcome(m)
	}
	return ""
}

// prepareImages builds (or finds) every image the variants need.
func (r *Runner) prepareImages(ctx context.Context, variants []scenarios.Variant) error {
	for _, v := range variants {
		if v.Spec.Topology == scenarios.TopologyCaddy {
			if _, err := r.imgs.Caddy(ctx); err != nil {
				return fmt.Errorf("caddy image: %w", err)
			}
		}
		// A user's image on a cluster need not be on this engine: the
		// nodes may have it or pull it (a pod that cannot says so).
		if v.Spec.Platform != scenarios.PlatformKubernetes || v.Spec.Target.Image == "" {
			if _, _, err := r.imgs.Target(ctx, imageTarget(v.Spec.Target)); err != nil {
				return err
			}
		}
		load, err := newLoadDriver(v.Spec.Load.Kind)
		if err != nil {
			return err
		}
		if _, err := load.image(ctx, r.imgs); err != nil {
			return err
		}
		if err := load.prepare(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

func (r *Runner) fingerprint() record.Fingerprint {
	fp := hostFingerprint()
	fp.Kernel = r.info.Kernel
	fp.OS = r.info.OS
	fp.DockerVersion = r.info.ServerVersion
	fp.DockerAPI = r.info.APIVersion
	if r.info.NCPU > 0 {
		fp.Cores = r.info.NCPU
	}
	return fp
}

// errInvalid marks a harness failure that makes a run invalid.
type errInvalid struct{ msg string }

func (e *errInvalid) Error() string { return e.msg }

func invalidf(format string, args ...any) error {
	return &errInvalid{fmt.Sprintf(format, args...)}
}

// isCancel reports whether err comes from the run being interrupted.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled)
}
