package scenarios

import (
	"fmt"
	"strconv"
)

// HarnessLimits bounds each of the harness's own containers of a run —
// the load agent (any load kind) and the services (the jobs load's
// PostgreSQL) — so that a runaway harness process cannot take the
// machine's memory or process table. The target is never
// limited by them: it runs as its image ships. A zero field takes its
// default; a scenario may raise either (or lower it, to test the
// harness).
type HarnessLimits struct {
	// MemoryMB is each container's memory limit in MiB,
	// MinHarnessMemoryMB..MaxHarnessMemoryMB (default
	// DefaultHarnessMemoryMB).
	MemoryMB int `yaml:"memory_mb" json:"memory_mb,omitempty"`
	// PIDs is each container's limit on processes and threads,
	// MinHarnessPIDs..MaxHarnessPIDs (default DefaultHarnessPIDs).
	PIDs int `yaml:"pids" json:"pids,omitempty"`
}

// Bounds and defaults of limits.memory_mb and limits.pids. The defaults
// are meant to leave room many times over for the largest catalog load
// (docs/scenarios.md gives what was measured).
const (
	DefaultHarnessMemoryMB = 1024
	MinHarnessMemoryMB     = 64
	MaxHarnessMemoryMB     = 65536
	DefaultHarnessPIDs     = 4096
	MinHarnessPIDs         = 64
	MaxHarnessPIDs         = 1 << 20
)

// HarnessLimits is s.Limits with defaults for the fields left zero.
func (s *Spec) HarnessLimits() HarnessLimits {
	var l HarnessLimits
	if s.Limits != nil {
		l = *s.Limits
	}
	if l.MemoryMB == 0 {
		l.MemoryMB = DefaultHarnessMemoryMB
	}
	if l.PIDs == 0 {
		l.PIDs = DefaultHarnessPIDs
	}
	return l
}

// MemoryBytes is MemoryMB in bytes.
func (l HarnessLimits) MemoryBytes() int64 { return int64(l.MemoryMB) << 20 }

// validateLimits checks limits.memory_mb and limits.pids (0: default).
func validateLimits(s *Spec, fail FailFunc) {
	if s.Limits == nil {
		return
	}
	if m := s.Limits.MemoryMB; m != 0 && (m < MinHarnessMemoryMB || m > MaxHarnessMemoryMB) {
		fail("limits.memory_mb", strconv.Itoa(m), fmt.Sprintf("must be %d..%d (MiB; default %d)", MinHarnessMemoryMB, MaxHarnessMemoryMB, DefaultHarnessMemoryMB))
	}
	if p := s.Limits.PIDs; p != 0 && (p < MinHarnessPIDs || p > MaxHarnessPIDs) {
		fail("limits.pids", strconv.Itoa(p), fmt.Sprintf("must be %d..%d (default %d)", MinHarnessPIDs, MaxHarnessPIDs, DefaultHarnessPIDs))
	}
}
