package resultdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// tempSuffix ends every temporary file WriteFileAtomic makes, so one left
// by a killed process is recognisable ("*.tmp").
const tempSuffix = ".tmp"

// WriteFileAtomic writes b to path (mode 0644) through a temporary file of
// a unique name in the same directory and a rename, so a reader never sees
// half a file, a full disk leaves no half file (the temporary one is
// removed), and two writers of the same path never share a temporary file:
// the last rename wins whole. Errors read "write PATH: reason".
func WriteFileAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*"+tempSuffix)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, BareError(err))
	}
	tmp := f.Name()
	_, werr := f.Write(b)
	cerr := f.Close()
	err = errors.Join(werr, cerr)
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, BareError(err))
	}
	return nil
}

// WriteJSON writes v as indented JSON, with a final newline, to path
// atomically (WriteFileAtomic).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// ReadJSON reads the JSON file path into v. A missing file is an error
// wrapping fs.ErrNotExist (as os.ReadFile's); content that does not decode
// is an error naming the file.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// BareError strips the operation and path of a file error ("write
// /x/records.jsonl: no space left on device" -> "no space left on
// device"), for messages that name the file themselves.
func BareError(err error) error {
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
