package scenarios

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
)

// SetSource is the File of a ValidationError caused by a --set override.
const SetSource = "--set"

// ValidationError says what is wrong with one value of a scenario, and where.
// Its text reads like
//
//	scenarios/catalog/x.yaml:14: load.duration: "3q": invalid duration (want e.g. 6s, 500ms)
type ValidationError struct {
	// File is the scenario file (or SetSource for a --set override).
	File string
	// Line is the 1-based line in File, 0 when unknown (a default value).
	Line int
	// Field is the dotted path of the field, e.g. "load.mix[1].path".
	Field string
	// Value is the offending value as written ("" when missing).
	Value string
	// Msg says what is wrong.
	Msg string
	// Variant is the label of the variant(s) the error occurs in, when it
	// does not occur in every variant.
	Variant string

	schema bool // found by the schema check (the file's shape), not validate
}

// Error implements error.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	if v := shorten(e.Value, maxValueChars); v != e.Value {
		fmt.Fprintf(&b, ": %q (%d bytes)", v, len(e.Value))
	} else if e.Value != "" {
		fmt.Fprintf(&b, ": %q", e.Value)
	}
	b.WriteString(": " + e.Msg)
	if e.Variant != "" {
		fmt.Fprintf(&b, " (variant %s)", e.Variant)
	}
	return b.String()
}

// maxValueChars is how much of a value an error quotes: a scenario value
// is short, and a longer one (a generated blob) is cut, not echoed whole.
const maxValueChars = 200

// ValidationErrors is every error found in one scenario, in file order
// (errors without a line last). It is what Load, Find, Catalog and Expand
// return when a scenario is invalid.
type ValidationErrors []*ValidationError

// Error implements error: one error per line.
func (es ValidationErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the individual errors, for errors.As and errors.Is.
func (es ValidationErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// sorted orders es by line (lines unknown last), keeping the order of
// errors on the same line, and drops exact duplicates.
func (es ValidationErrors) sorted() ValidationErrors {
	seen := map[string]bool{}
	out := ValidationErrors{}
	for _, e := range es {
		if k := e.Error(); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		li, lj := out[i].Line, out[j].Line
		if (li == 0) != (lj == 0) {
			return lj == 0
		}
		return li < lj
	})
	return out
}

// schemaOnly keeps the errors found by the schema check.
func (es ValidationErrors) schemaOnly() ValidationErrors {
	var out ValidationErrors
	for _, e := range es {
		if e.schema {
			out = append(out, e)
		}
	}
	return out
}

// errOrNil returns es as an error, or nil when it is empty.
func (es ValidationErrors) errOrNil() error {
	if len(es) == 0 {
		return nil
	}
	return es.sorted()
}

// fromYAML turns a go-yaml error (syntax, or a decode error the schema check
// did not catch) into a ValidationError carrying its position.
func fromYAML(file string, err error) *ValidationError {
	var ye yaml.Error
	if errors.As(err, &ye) {
		ve := &ValidationError{File: file, Msg: ye.GetMessage()}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			ve.Line = tk.Position.Line
		}
		return ve
	}
	return &ValidationError{File: file, Msg: err.Error()}
}
