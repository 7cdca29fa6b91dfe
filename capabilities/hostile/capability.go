// Package hostile is the hostile-clients load as a capability (load.kind
// hostile: slow clients trickling a request's headers or body, clients
// aborting requests mid-body), in one place and registered once, by this
// package's init:
//
//   - its scenario block, load.hostile (Load, its client kinds, defaults
//     and validation: load.go), registered with package scenarios
//     (scenarios.RegisterLoadKind), with the one property the shared
//     checks ask of it: the path its clients request, which the target
//     must serve;
//   - its load driver, the load agent run with -hostile (driver.go),
//     registered with the runner (runner.RegisterLoadDriver).
//
// It has no report capability of its own: a hostile run's attempts are
// request records, which the core's rows count (and keep out of the
// latency percentiles). A program gets the kind by importing package
// capabilities, the one list.
//
// What stays outside, each for a reason: the record types (record's
// LoadKindHostile, the Hostile* client kinds and Request.Hostile, in
// record/hostile.go) stay in package record, which every package imports
// (this one included), so moving them here would be an import cycle; the
// hostile clients themselves (loadgen's RunHostile and HostileLoad,
// cmd/loadagent's -hostile flags) stay in the load agent, a program
// built into its image from the embedded sources, which import record but
// none of the harness; and the runner's Docker test of the kind
// (internal/runner/hostile_integration_test.go) stays with the runner's
// test helpers it uses.
package hostile

import (
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// init registers the hostile load kind with the scenarios and its driver
// with the runner: the kind exists for a program that imports this
// package (through package capabilities' list).
func init() {
	scenarios.RegisterLoadKind(LoadKind, loadKindDef)
	runner.RegisterLoadDriver(LoadKind, func() runner.LoadDriver { return driver{} })
}
