package runner

import "github.com/shutdownlab/shutdownlab/internal/resultdir"

// The run directory's files the runner names most often. Every name, the
// directory naming and the atomic writes are internal/resultdir's; these
// are short local names for two of them.
const (
	recordsFile  = resultdir.RecordsFile
	agentLogFile = resultdir.AgentLogFile
)
