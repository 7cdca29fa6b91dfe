package runner

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// compressAbove is the size past which records.jsonl is gzipped after a run.
const compressAbove = 8 << 20

// VariantRef names a variant directory in scenario order; written to
// variants.json so reports list variants in the order the scenario gave them.
type VariantRef struct {
	Label string `json:"label"`
	Slug  string `json:"slug"`
}

// NewResultDir creates <root>/<timestamp>-<scenario>/ and returns its path.
// The timestamp is local time to the second; a numeric suffix avoids
// collisions when two scenarios start within the same second.
func NewResultDir(root, scenario string, now time.Time) (string, error) {
	base := filepath.Join(root, now.Format("20060102-150405")+"-"+scenario)
	dir := base
	for i := 2; ; i++ {
		err := os.MkdirAll(filepath.Dir(dir), 0o755)
		if err != nil {
			return "", fmt.Errorf("results dir: %w", err)
		}
		err = os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !os.IsExist(err) || i > 99 {
			return "", fmt.Errorf("results dir: %w", err)
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

// RunDir is the directory of one run: <dir>/<variant-slug>/run-NNN.
func RunDir(dir, slug string, run int) string {
	return filepath.Join(dir, slug, fmt.Sprintf("run-%03d", run))
}

// writeJSON writes v as indented JSON to path, atomically (temp + rename),
// so an interrupted write never leaves a half file a report would misread.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// writeFileAtomic writes b to path through a temporary file, which is
// removed again when the write fails (a full disk leaves no half file).
func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, bareError(err))
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, bareError(err))
	}
	return nil
}

// bareError strips the operation and path of a file error ("write
// /x/records.jsonl: no space left on device" -> "no space left on device")
// for messages that name the file themselves.
func bareError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// compressIfLarge gzips path to path+".gz" and removes the original when it
// is larger than compressAbove; readers accept both forms.
func compressIfLarge(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Size() <= compressAbove {
		return nil
	}
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(path + ".gz")
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(out)
	if _, err := io.Copy(zw, bufio.NewReaderSize(in, 1<<20)); err != nil {
		out.Close()
		os.Remove(path + ".gz")
		return fmt.Errorf("compress %s: %w", path, err)
	}
	if err := zw.Close(); err != nil {
		out.Close()
		os.Remove(path + ".gz")
		return fmt.Errorf("compress %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		os.Remove(path + ".gz")
		return fmt.Errorf("compress %s: %w", path, err)
	}
	return os.Remove(path)
}
