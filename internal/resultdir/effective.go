package resultdir

import (
	"encoding/json"
	"path/filepath"
)

// Effective is the content of EffectiveFile: what a scenario run was
// asked to run, written by the runner before its first run starts. Every
// other file that names the scenario or its values is written at the end
// of a run (events.json) or by report (summary.json), so after a harness
// killed mid-run (SIGKILL) this is what still says which scenario the
// directory holds and under which values, --set included.
type Effective struct {
	// Scenario is the scenario's name (the directory's name also holds a
	// timestamp). Empty in files written before it was recorded.
	Scenario string `json:"scenario,omitempty"`
	// Sets are the --set overrides the run was given, in order.
	Sets []string `json:"sets,omitempty"`
	// Variants are the variants as run, in scenario order.
	Variants []EffectiveVariant `json:"variants"`
}

// EffectiveVariant is one variant as run: its label and its resolved
// spec (defaults, the file, --set and the variant's own values), the JSON
// of a scenarios.Spec, kept raw here so that this package imports nothing
// of ours.
type EffectiveVariant struct {
	Label string          `json:"label"`
	Spec  json.RawMessage `json:"spec"`
}

// WriteEffective writes EffectiveFile into dir, atomically.
func WriteEffective(dir string, e Effective) error {
	return WriteJSON(filepath.Join(dir, EffectiveFile), e)
}

// ReadEffective reads EffectiveFile of dir; an error wrapping
// fs.ErrNotExist when there is none (a result written before it existed).
func ReadEffective(dir string) (Effective, error) {
	var e Effective
	err := ReadJSON(filepath.Join(dir, EffectiveFile), &e)
	return e, err
}
