package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Image names of the project's own images.
const (
	TargetImageName = "shutdownlab/target"
	AgentImageName  = "shutdownlab/loadagent"
	ProbeImageName  = "shutdownlab/probe"
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
}

// Runner runs scenarios against one Docker engine. Create it with New and
// Close it when done.
type Runner struct {
	opts   Options
	eng    *docker.Engine
	info   docker.Info
	target string // image ref
	agent  string // image ref
	seq    int    // run counter for unique names within the session
	// goVersion is the Go toolchain the target was compiled with.
	goVersion string
	caddy     caddyBuild
	node      nodeBuild
	probe     nodeBuild // the probe image (version unused)
	// shells caches shell-form images by base image, built on first use.
	shellMu sync.Mutex
	shells  map[string]string
}

// nodeBuild is the Node target image, built on first use.
type nodeBuild struct {
	once    sync.Once
	ref     string
	version string
	err     error
}

// targetImage returns the image a target runs and a label naming its
// runtime for the record ("go go1.26", "node v20.20.2", "image NAME"). A
// user image (target.image) must exist locally: it is never pulled. The
// Node image (about 100 MB) and shell-form images (target.entrypoint shell)
// are built on first use only.
func (r *Runner) targetImage(ctx context.Context, t scenarios.Target) (ref, label string, err error) {
	switch {
	case t.Image != "":
		ok, err := r.eng.ImageExists(ctx, t.Image)
		if err != nil {
			return "", "", fmt.Errorf("target image %s: %w", t.Image, err)
		}
		if !ok {
			return "", "", fmt.Errorf("target image %s: not present on this Docker engine (shutdownlab never pulls; build or load it first)", t.Image)
		}
		ref, label = t.Image, "image "+t.Image
	case t.Runtime == scenarios.RuntimeNode:
		r.node.once.Do(func() {
			r.opts.Progress.Logf("node target image: building or reusing %s", images.NodeImageName)
			r.node.ref, r.node.version, r.node.err = images.BuildNodeTarget(ctx, r.eng, r.opts.ModuleDir, progressWriter{r.opts.Progress})
		})
		if r.node.err != nil {
			return "", "", fmt.Errorf("node target image: %w", r.node.err)
		}
		ref, label = r.node.ref, "node "+r.node.version
	default:
		ref, label = r.target, "go "+r.goVersion
	}
	if t.Entrypoint != scenarios.EntrypointShell {
		return ref, label, nil
	}
	r.shellMu.Lock()
	defer r.shellMu.Unlock()
	if sh, ok := r.shells[ref]; ok {
		return sh, label + " behind /bin/sh -c", nil
	}
	sh, err := images.BuildShellTarget(ctx, r.eng, ref, progressWriter{r.opts.Progress})
	if err != nil {
		return "", "", err
	}
	if r.shells == nil {
		r.shells = map[string]string{}
	}
	r.shells[ref] = sh
	return sh, label + " behind /bin/sh -c", nil
}

// probeImage returns the raw-socket probe's image (./cmd/probe, built like
// the load agent, cached by content hash), built on first use.
func (r *Runner) probeImage(ctx context.Context) (string, error) {
	r.probe.once.Do(func() {
		var spec images.Spec
		if spec, r.probe.err = imageSpec(ProbeImageName, "./cmd/probe", r.opts.ModuleDir, progressWriter{r.opts.Progress}); r.probe.err == nil {
			r.probe.ref, _, r.probe.err = images.Build(ctx, r.eng, spec)
		}
	})
	if r.probe.err != nil {
		return "", fmt.Errorf("probe image: %w", r.probe.err)
	}
	return r.probe.ref, nil
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
	r := &Runner{opts: opts, eng: eng, goVersion: runtime.Version()}
	if r.info, err = eng.Info(ctx); err != nil {
		eng.Close()
		return nil, err
	}
	if r.target, r.agent, err = BuildImages(ctx, eng, opts.ModuleDir, progressWriter{opts.Progress}); err != nil {
		eng.Close()
		return nil, err
	}
	return r, nil
}

// BuildImages builds (or reuses) the target and load agent images and
// returns their references. moduleDir "" compiles the sources built into
// this binary (images.EmbeddedModule); the images are then tagged by a hash
// of those sources, so a cached image costs no go build.
func BuildImages(ctx context.Context, eng images.Engine, moduleDir string, log io.Writer) (target, agent string, err error) {
	for _, b := range []struct {
		name, pkg, what string
		ref             *string
	}{
		{TargetImageName, "./cmd/target", "target image", &target},
		{AgentImageName, "./cmd/loadagent", "load agent image", &agent},
	} {
		spec, err := imageSpec(b.name, b.pkg, moduleDir, log)
		if err == nil {
			*b.ref, _, err = images.Build(ctx, eng, spec)
		}
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", b.what, err)
		}
	}
	return target, agent, nil
}

// imageSpec is the spec of one of the project's Go images: compiled from
// moduleDir, or from the embedded sources when it is "".
func imageSpec(name, pkg, moduleDir string, log io.Writer) (images.Spec, error) {
	spec := images.Spec{Name: name, Package: pkg, ModuleDir: moduleDir, Log: log}
	if moduleDir == "" {
		m, err := images.EmbeddedModule()
		if err != nil {
			return spec, err
		}
		spec.Module = m
	}
	return spec, nil
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
func (r *Runner) Close() error { return r.eng.Close() }

// Engine returns the runner's Docker engine.
func (r *Runner) Engine() *docker.Engine { return r.eng }

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
	dir, err := NewResultDir(r.opts.Out, sc.Name(), r.opts.Now())
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Dir: dir}
	if err := writeFileAtomic(filepath.Join(dir, "scenario.yaml"), sc.Raw()); err != nil {
		return out, err
	}
	refs := make([]VariantRef, len(variants))
	for i, v := range variants {
		refs[i] = VariantRef{Label: v.Label, Slug: v.Slug}
	}
	if err := writeJSON(filepath.Join(dir, "variants.json"), refs); err != nil {
		return out, err
	}
	fp := r.fingerprint()
	for _, v := range variants {
		for i := 1; i <= v.Spec.Runs; i++ {
			if ctx.Err() != nil {
				return out, nil
			}
			r.opts.Progress.RunStart(sc.Name(), v.Label, i, v.Spec.Runs, v.Spec.Load.Duration.D())
			meta := r.runOnce(ctx, v, i, RunDir(dir, v.Slug, i))
			meta.Fingerprint = fp
			out.Runs++
			if !meta.Valid {
				out.Invalid++
			}
			if meta.Incomplete {
				out.Incomplete++
			}
			// The outcome first: on a full disk events.json fails too.
			r.opts.Progress.RunEnd(runLine(meta))
			if err := writeJSON(filepath.Join(RunDir(dir, v.Slug, i), "events.json"), meta); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// prepareImages builds (or finds) every image the variants need.
func (r *Runner) prepareImages(ctx context.Context, variants []scenarios.Variant) error {
	for _, v := range variants {
		if v.Spec.Topology == scenarios.TopologyCaddy {
			if _, err := r.caddyImage(ctx); err != nil {
				return fmt.Errorf("caddy image: %w", err)
			}
		}
		if _, _, err := r.targetImage(ctx, v.Spec.Target); err != nil {
			return err
		}
		if v.Spec.Load.Kind == scenarios.LoadProbe {
			if _, err := r.probeImage(ctx); err != nil {
				return err
			}
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

// Clean removes every container, network and volume labelled by
// shutdownlab, from any session (leftovers of killed runs).
func Clean(ctx context.Context) (string, error) {
	eng, err := docker.New(ctx)
	if err != nil {
		return "", err
	}
	defer eng.Close()
	removed, err := eng.Clean(ctx)
	if removed.Empty() && err == nil {
		return "nothing to clean", nil
	}
	return removed.String(), err
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

var _ = os.Stderr
