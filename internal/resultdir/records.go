package resultdir

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// CompressAbove is the size past which a run's RecordsFile is gzipped
// into RecordsGzFile after the run.
const CompressAbove = 8 << 20

// OpenRecords opens run directory rd's RecordsFile, else its
// RecordsGzFile (decompressed), and returns it with the path it came from
// (for errors). Neither there: an error wrapping fs.ErrNotExist.
func OpenRecords(rd string) (io.ReadCloser, string, error) {
	name := filepath.Join(rd, RecordsFile)
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		name = filepath.Join(rd, RecordsGzFile)
		f, err = os.Open(name)
		if err == nil {
			zr, zerr := gzip.NewReader(f)
			if zerr != nil {
				f.Close()
				return nil, name, fmt.Errorf("%s: %w", name, zerr)
			}
			return gzFile{zr, f}, name, nil
		}
	}
	if err != nil {
		return nil, name, err
	}
	return f, name, nil
}

// gzFile closes both the gzip reader and its file.
type gzFile struct {
	*gzip.Reader
	f *os.File
}

func (g gzFile) Close() error { return errors.Join(g.Reader.Close(), g.f.Close()) }

// CompressRecords gzips run directory rd's RecordsFile into RecordsGzFile
// and removes the original, when it is larger than CompressAbove; readers
// (OpenRecords) accept both forms. A failure leaves the original and no
// half-written RecordsGzFile.
func CompressRecords(rd string) error {
	path := filepath.Join(rd, RecordsFile)
	st, err := os.Stat(path)
	if err != nil || st.Size() <= CompressAbove {
		return nil
	}
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	gz := filepath.Join(rd, RecordsGzFile)
	out, err := os.Create(gz)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(out)
	_, err = io.Copy(zw, bufio.NewReaderSize(in, 1<<20))
	if err == nil {
		err = zw.Close()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(gz)
		return fmt.Errorf("compress %s: %w", path, err)
	}
	return os.Remove(path)
}
