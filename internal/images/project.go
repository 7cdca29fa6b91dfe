package images

import (
	"context"
	"io"
	"path/filepath"
)

// Image names of the project's own Go images.
const (
	// TargetImageName is the Go target (./cmd/target).
	TargetImageName = "shutdownlab/target"
	// AgentImageName is the load agent (./cmd/loadagent).
	AgentImageName = "shutdownlab/loadagent"
	// ProbeImageName is the raw-socket probe (./cmd/probe).
	ProbeImageName = "shutdownlab/probe"
	// WSAgentImageName is the WebSocket load agent (./cmd/wsagent).
	WSAgentImageName = "shutdownlab/wsagent"
	// CaddyImageName is the Caddy reverse proxy (cmd/caddy, a nested
	// module).
	CaddyImageName = "shutdownlab/caddy"
)

// Packages of the project's own Go images, relative to the module root.
const (
	// TargetPackage is the Go target's main package.
	TargetPackage = "./cmd/target"
	// AgentPackage is the load agent's main package.
	AgentPackage = "./cmd/loadagent"
	// ProbePackage is the raw-socket probe's main package.
	ProbePackage = "./cmd/probe"
	// WSAgentPackage is the WebSocket load agent's main package.
	WSAgentPackage = "./cmd/wsagent"
)

// ProjectSpec is the spec of one of the project's Go images (name, main
// package pkg): compiled from moduleDir, or from the sources built into
// this binary (EmbeddedModule) when moduleDir is "", whatever the working
// directory. The image is then tagged by a hash of those sources, so a
// cached image costs no go build. Third-party modules (the target's
// github.com/coder/websocket) are pinned by the embedded go.sum and come
// from the Go module cache (or a reachable GOPROXY), as Caddy's do.
func ProjectSpec(name, pkg, moduleDir string, log io.Writer) (Spec, error) {
	spec := Spec{Name: name, Package: pkg, ModuleDir: moduleDir, Log: log}
	if moduleDir == "" {
		m, err := EmbeddedModule()
		if err != nil {
			return spec, err
		}
		spec.Module = m
	}
	return spec, nil
}

// BuildProject builds (or reuses, by content hash) the Go target and the
// load agent images and returns their references. moduleDir "" compiles
// the sources built into this binary (see ProjectSpec); log receives one
// progress line per image (nil: silent).
func BuildProject(ctx context.Context, eng Engine, moduleDir string, log io.Writer) (target, agent string, err error) {
	return NewCache(eng, moduleDir, log).Project(ctx)
}

// CaddySpec is the image spec of the Caddy proxy for the module tree at
// moduleDir ("" = the copy of cmd/caddy built into this binary, whatever
// the working directory). cmd/caddy is a nested module whose go.mod, go.sum
// and main.go determine the binary, so the image is keyed by those files
// and never recompiled while they are unchanged. Compiling it needs Caddy's
// dependencies in the Go module cache (or a reachable GOPROXY).
func CaddySpec(moduleDir string) (Spec, error) {
	spec := Spec{Name: CaddyImageName, Package: ".", Sources: CaddySources}
	if moduleDir != "" {
		spec.ModuleDir = filepath.Join(moduleDir, "cmd", "caddy")
		return spec, nil
	}
	m, err := CaddyModule()
	spec.Module = m
	return spec, err
}
