// Package shutdownlab carries the sources of the programs shutdownlab runs
// inside containers: the Go target (cmd/target, targetapp), the Node target
// (targetapp/node/server.js), the load agents (cmd/loadagent, loadgen;
// cmd/wsagent, loadgen/ws), the job producer (cmd/jobagent, jobs) and the
// raw-socket probe (cmd/probe, probe), with the packages they import and
// the module's go.mod and go.sum.
//
// They are embedded so that a shutdownlab binary builds its images from its
// own sources wherever it is started: the working directory plays no part
// (outside any repository, or inside another Go module, the images are the
// same). internal/images compiles them in a temporary directory; the list
// below is checked against `go list -deps` by a test in internal/images.
// Every load agent's command is embedded by the pattern cmd/*agent, so a
// new load kind whose command is cmd/NAMEagent, with its library under
// loadgen/, adds nothing here.
package shutdownlab

import "embed"

// ImageSources is the module subtree the container images are compiled
// from. Test files and testdata are embedded too but never compiled or
// hashed.
//
//go:embed go.mod go.sum
//go:embed cmd/target cmd/probe cmd/*agent
//go:embed targetapp loadgen probe record internal/envflag internal/agentcmd jobs
var ImageSources embed.FS
