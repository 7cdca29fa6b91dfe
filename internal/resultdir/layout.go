package resultdir

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The files of a result directory (one scenario run).
const (
	// ScenarioFile is the scenario file as run (before --set and variants).
	ScenarioFile = "scenario.yaml"
	// VariantsFile lists the variants in scenario order ([]VariantRef).
	VariantsFile = "variants.json"
	// EffectiveFile holds the scenario's name, the --set overrides and
	// every variant's resolved spec (Effective), written by the runner
	// before the first run starts.
	EffectiveFile = "effective.json"
	// SummaryFile, MarkdownFile, CSVFile and SpreadCSVFile are report's
	// outputs.
	SummaryFile   = "summary.json"
	MarkdownFile  = "report.md"
	CSVFile       = "report.csv"
	SpreadCSVFile = "spread.csv"
	// FailuresPlotFile is report's failures plot, once per result.
	FailuresPlotFile = "failures.png"
	// WSHandshakesPlotFile and WSClosesPlotFile are report's WebSocket
	// plots (handshakes per 100 ms, close times after the signal), once
	// per result with ws runs.
	WSHandshakesPlotFile = "ws_handshakes.png"
	WSClosesPlotFile     = "ws_closes.png"
	// VerdictFile is shutdownlab check's verdict in plain words.
	VerdictFile = "verdict.txt"
)

// The files of a run directory (one repetition of one variant).
const (
	// EventsFile is the run's record.Meta: written last, so a run
	// directory without one never finished.
	EventsFile = "events.json"
	// RecordsFile is the agent's stdout, verbatim; RecordsGzFile the same
	// gzipped, when it grew past CompressAbove.
	RecordsFile   = "records.jsonl"
	RecordsGzFile = RecordsFile + ".gz"
	// AgentLogFile is the agent's (or the probe's) stderr.
	AgentLogFile = "agent.log"
	// ProxyConfigFile is the exact Caddy configuration (topology caddy);
	// ProxyLogFile is Caddy's log.
	ProxyConfigFile = "proxy.json"
	ProxyLogFile    = "proxy.log"
	// LatencyPlotFile is report's latency plot of the run.
	LatencyPlotFile = "latency.png"
	// ResourcesFile is the target replicas' resource samples, one
	// record.ResourceSample per line (absent: nothing was sampled;
	// record.Meta.Resources says why).
	ResourcesFile = "resources.jsonl"
)

// AppLog is the file holding a replica's stdout and stderr.
func AppLog(replica string) string { return "app-" + replica + ".log" }

// LedgerLog is the file holding a replica's ledger, read back after the run.
func LedgerLog(replica string) string { return replica + "-ledger.log" }

// HandlerJobLog is the file holding a replica's job log, read back after the run.
func HandlerJobLog(replica string) string { return replica + "-job.log" }

// timestampLayout names result directories: local time to the second.
const timestampLayout = "20060102-150405"

// New creates <root>/<timestamp>-<scenario>/ and returns its path. The
// timestamp is local time to the second; a numeric suffix (-2, -3, ...)
// avoids collisions when two scenarios start within the same second.
func New(root, scenario string, now time.Time) (string, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("results dir: %w", err)
	}
	base := filepath.Join(root, now.Format(timestampLayout)+"-"+scenario)
	dir := base
	for i := 2; ; i++ {
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !os.IsExist(err) || i > 99 {
			return "", fmt.Errorf("results dir: %w", err)
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

// runPrefix starts every run directory's name.
const runPrefix = "run-"

// RunName is the name of run directory number run: "run-007".
func RunName(run int) string { return fmt.Sprintf("%s%03d", runPrefix, run) }

// RunNumber reads the run number from a run directory's name ("run-007"
// -> 7); false when the name does not start with one.
func RunNumber(name string) (int, bool) {
	var n int
	if _, err := fmt.Sscanf(name, runPrefix+"%d", &n); err != nil {
		return 0, false
	}
	return n, true
}

// RunDir is the directory of one run: <dir>/<variant-slug>/run-NNN.
func RunDir(dir, slug string, run int) string {
	return filepath.Join(dir, slug, RunName(run))
}

// RunDirs lists the run directories (run-*) of variant slug in result
// directory dir, sorted by name, which is run order; none is not an error.
func RunDirs(dir, slug string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, slug, runPrefix+"*"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range names {
		if fi, err := os.Stat(name); err == nil && fi.IsDir() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}
