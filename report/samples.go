package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
)

// ReadResourceSamples reads run directory rd's resource samples
// (resultdir.ResourcesFile, one record.ResourceSample per line); none when
// the file is absent. The resources capability computes its metrics from
// them and the core latency plot draws its fd panel from them. A line that
// does not decode is an error naming the file and line.
func ReadResourceSamples(rd string) ([]record.ResourceSample, error) {
	f, err := os.Open(filepath.Join(rd, resultdir.ResourcesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []record.ResourceSample
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var s record.ResourceSample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", resultdir.ResourcesFile, line, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", resultdir.ResourcesFile, err)
	}
	return out, nil
}
