package resultdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// VariantRef names a variant directory, one entry of VariantsFile, which
// lists the variants in scenario order so reports keep that order.
type VariantRef struct {
	// Label is the human label ("mode=full"); Slug its directory name.
	Label string `json:"label"`
	Slug  string `json:"slug"`
}

// WriteVariants writes VariantsFile into dir.
func WriteVariants(dir string, refs []VariantRef) error {
	return WriteJSON(filepath.Join(dir, VariantsFile), refs)
}

// Variants returns the variants of result directory dir in order: from
// VariantsFile, else every subdirectory holding a run directory, sorted by
// name (then without labels). A slug that is not a plain directory name,
// or no variant at all, is an error naming the file or directory.
func Variants(dir string) ([]VariantRef, error) {
	name := filepath.Join(dir, VariantsFile)
	var refs []VariantRef
	err := ReadJSON(name, &refs)
	if err == nil {
		for i, r := range refs {
			if r.Slug == "" || r.Slug != filepath.Base(r.Slug) || r.Slug == ".." {
				return nil, fmt.Errorf("%s: entry %d: bad slug %q", name, i, r.Slug)
			}
		}
		return refs, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if runs, _ := RunDirs(dir, e.Name()); len(runs) > 0 {
			refs = append(refs, VariantRef{Slug: e.Name()})
		}
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("%s: no %s and no <variant>/%s* directories", dir, VariantsFile, runPrefix)
	}
	return refs, nil
}
