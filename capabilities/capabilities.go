// Package capabilities is the one list of shutdownlab's report
// capabilities and sections, and of the capabilities' published claims,
// each in its explicit order. A program installs the capabilities into
// package report and their claims into package reproduce once, at start,
// before it reads or writes a report or a reproduction (Install; the
// CLI's Main does), and a test that needs their rows or claims calls
// Install too; without it a report has the core's rows alone and a
// reproduction the core's claims (P1–P12). Package document reads the
// sections from here.
//
// Importing this package also registers, through the listed packages'
// init functions, what a capability brings beyond its report rows: the
// probe's load kind with package scenarios and its driver with the
// runner (capabilities/probe). A program, or a test that decodes such a
// scenario, imports this list rather than the capability itself.
//
// Adding a capability is a directory of its own under capabilities/ —
// its package builds a report.Capability (and, if report.md shows it, a
// report.Section; if it has published claims, a reproduce.ClaimSet), its
// analysis package computes its part, its init registers anything else
// with the core's exported Register functions — and one entry in each
// list below: the only shared file it touches.
package capabilities

import (
	"github.com/shutdownlab/shutdownlab/capabilities/cluster"
	_ "github.com/shutdownlab/shutdownlab/capabilities/hostile" // its init registers load.kind hostile: no report rows of its own
	"github.com/shutdownlab/shutdownlab/capabilities/pod"
	"github.com/shutdownlab/shutdownlab/capabilities/probe"
	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs"
	"github.com/shutdownlab/shutdownlab/capabilities/resources"
	"github.com/shutdownlab/shutdownlab/capabilities/rollout"
	"github.com/shutdownlab/shutdownlab/capabilities/websockets"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/sections/deregistration"
	"github.com/shutdownlab/shutdownlab/reproduce"
)

// list is the capabilities, in order: the order of their rows among rows
// placed after the same core row, of their headlines (the first whose
// every run has it leads), and of their metrics in summary.json.
var list = []report.Capability{
	probe.Capability,
	websockets.Capability,
	cluster.Capability,
	rollout.Capability,
	queuejobs.Capability,
	pod.Capability,
	resources.Capability,
}

// claims are the capabilities' published claims, in the order of the
// reproduction's table after P1–P12 (reproduce.Claims): the WebSocket
// claims, the background-job claims, the cluster claims.
var claims = []reproduce.ClaimSet{
	websockets.Claims,
	queuejobs.Claims,
	cluster.Claims,
}

// Install installs the list into package report (report.Install) and the
// claims into package reproduce (reproduce.InstallClaims), each in its
// order; again, it is a no-op.
func Install() {
	report.Install(list...)
	reproduce.InstallClaims(claims...)
}

// Sections returns a fresh value of every capability's section, in the
// order report.md shows them after the table of all metrics: the
// WebSocket plots, the deregistration race, the rollout, the jobs.
func Sections() []report.Section {
	return []report.Section{&websockets.Section{}, &deregistration.Section{}, &rollout.Section{}, &queuejobs.Section{}}
}
