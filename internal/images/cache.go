package images

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// Target says which image a scenario's target runs.
type Target struct {
	// Image is a user's image, which must exist on the engine (it is never
	// pulled); "" selects one of the project's targets.
	Image string
	// Node selects the Node target (targetapp/node) instead of the Go one.
	Node bool
	// Shell runs the image's command behind /bin/sh -c (BuildShellTarget).
	Shell bool
}

// Cache builds the images a session needs, each on first use and at most
// once, and keeps their references for the rest of the session; a failed
// build is remembered too (except a shell image's, which a later call
// tries again). It is safe for concurrent use.
type Cache struct {
	eng       Engine
	moduleDir string
	log       io.Writer
	goVersion string

	mu     sync.Mutex
	once   map[string]*cached
	shell  sync.Mutex        // held while a shell image builds
	shells map[string]string // shell image by base image
}

// cached is one image of a Cache, built at most once.
type cached struct {
	once    sync.Once
	ref     string
	version string // the Node target's Node version
	err     error
}

// NewCache returns a Cache building on eng from the module tree at
// moduleDir ("" = the sources built into this binary, see ProjectSpec);
// log receives progress lines (nil: silent).
func NewCache(eng Engine, moduleDir string, log io.Writer) *Cache {
	return &Cache{eng: eng, moduleDir: moduleDir, log: log, goVersion: runtime.Version(),
		once: map[string]*cached{}, shells: map[string]string{}}
}

// entry returns the cache slot for key, creating it on first use.
func (c *Cache) entry(key string) *cached {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.once[key]
	if !ok {
		e = &cached{}
		c.once[key] = e
	}
	return e
}

// Go returns the project's Go image name, compiled from its main package
// pkg (see ProjectSpec), built or found by content hash on first use.
func (c *Cache) Go(ctx context.Context, name, pkg string) (string, error) {
	e := c.entry("go " + name)
	e.once.Do(func() {
		spec, err := ProjectSpec(name, pkg, c.moduleDir, c.log)
		if err == nil {
			e.ref, _, err = Build(ctx, c.eng, spec)
		}
		e.err = err
	})
	return e.ref, e.err
}

// Project returns the Go target and load agent images (BuildProject).
func (c *Cache) Project(ctx context.Context) (target, agent string, err error) {
	if target, err = c.Go(ctx, TargetImageName, TargetPackage); err != nil {
		return "", "", fmt.Errorf("target image: %w", err)
	}
	if agent, err = c.Go(ctx, AgentImageName, AgentPackage); err != nil {
		return "", "", fmt.Errorf("load agent image: %w", err)
	}
	return target, agent, nil
}

// Caddy returns the Caddy proxy image (CaddySpec): a cold build compiles
// Caddy, minutes on 2 cores.
func (c *Cache) Caddy(ctx context.Context) (string, error) {
	e := c.entry("caddy")
	e.once.Do(func() {
		spec, err := CaddySpec(c.moduleDir)
		if err != nil {
			e.err = err
			return
		}
		spec.Log = c.log
		logf(c.log, "caddy image: building or reusing %s (a cold build takes minutes)\n", CaddyImageName)
		e.ref, _, e.err = Build(ctx, c.eng, spec)
	})
	return e.ref, e.err
}

// Target returns the image a target runs and a label naming its runtime
// for the record ("go go1.26", "node v20.20.2", "image NAME", with " behind
// /bin/sh -c" for a shell image). A user image must exist locally: it is
// never pulled. The Node image (about 100 MB) and shell images are built on
// first use only.
func (c *Cache) Target(ctx context.Context, t Target) (ref, label string, err error) {
	switch {
	case t.Image != "":
		ok, err := c.eng.ImageExists(ctx, t.Image)
		if err != nil {
			return "", "", fmt.Errorf("target image %s: %w", t.Image, err)
		}
		if !ok {
			return "", "", fmt.Errorf("target image %s: not present on this Docker engine (shutdownlab never pulls; build or load it first)", t.Image)
		}
		ref, label = t.Image, "image "+t.Image
	case t.Node:
		e := c.entry("node")
		e.once.Do(func() {
			logf(c.log, "node target image: building or reusing %s\n", NodeImageName)
			e.ref, e.version, e.err = BuildNodeTarget(ctx, c.eng, c.moduleDir, c.log)
		})
		if e.err != nil {
			return "", "", fmt.Errorf("node target image: %w", e.err)
		}
		ref, label = e.ref, "node "+e.version
	default:
		if ref, err = c.Go(ctx, TargetImageName, TargetPackage); err != nil {
			return "", "", fmt.Errorf("target image: %w", err)
		}
		label = "go " + c.goVersion
	}
	if !t.Shell {
		return ref, label, nil
	}
	sh, err := c.shellOf(ctx, ref)
	if err != nil {
		return "", "", err
	}
	return sh, label + " behind /bin/sh -c", nil
}

// shellOf returns the shell image wrapping base (BuildShellTarget), built
// on first use; a failed build is tried again on the next call.
func (c *Cache) shellOf(ctx context.Context, base string) (string, error) {
	c.shell.Lock()
	defer c.shell.Unlock()
	if sh, ok := c.shells[base]; ok {
		return sh, nil
	}
	sh, err := BuildShellTarget(ctx, c.eng, base, c.log)
	if err != nil {
		return "", err
	}
	c.shells[base] = sh
	return sh, nil
}
